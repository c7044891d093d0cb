package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// exitInterrupted is the shell's code for a run stopped by Ctrl-C (128+SIGINT).
const exitInterrupted = 130

var (
	sigOnce sync.Once
	sigCtx  context.Context
)

// cmdContext is cancelled on Ctrl-C or SIGTERM, so a run stops between
// files (and between repositories); a second Ctrl-C exits at once. Every
// call returns the same context.
func cmdContext() context.Context {
	sigOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		sigCtx = ctx
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-ch
			fmt.Fprintln(os.Stderr, "\nloratune-fix: interrupted; finishing the files in flight (Ctrl-C again to quit at once)")
			cancel()
			<-ch
			os.Exit(exitInterrupted)
		}()
	})
	return sigCtx
}

// interrupted reports whether the run was stopped by a signal.
func interrupted() bool { return sigCtx != nil && sigCtx.Err() != nil }
