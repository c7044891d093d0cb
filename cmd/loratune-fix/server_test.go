package main

import (
	"fmt"
	"strings"
	"testing"
)

func frames(msgs ...string) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}

// `server` speaks LSP on stdin and stdout, and exits as the protocol says:
// 0 after shutdown and exit, 1 on exit alone; a bad rule flag fails at
// once (exit 2), before any message.
func TestServerCommand(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
	out, errOut, code := run(t, frames(initialize, `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`), "server", "--profile", "lean")
	if code != 0 || !strings.Contains(out, `"notebookDocumentSync"`) || !strings.Contains(out, `"source.fixAll.loratune-fix"`) {
		t.Errorf("shutdown and exit: %d\n%s\n%s", code, out, errOut)
	}
	if _, _, code := run(t, frames(initialize, `{"jsonrpc":"2.0","method":"exit"}`), "server"); code != 1 {
		t.Errorf("exit without shutdown: %d, want 1", code)
	}
	if _, errOut, code := run(t, "", "server", "--select", "LTF999"); code != 2 || !strings.Contains(errOut, "LTF999") {
		t.Errorf("a bad --select: %d %s", code, errOut)
	}
}
