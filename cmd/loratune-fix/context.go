package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// cmdContext is cancelled on Ctrl-C or SIGTERM, so a run stops between files.
func cmdContext() context.Context {
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return ctx
}
