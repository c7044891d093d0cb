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
	sigOnce           sync.Once
	stopCtx, abortCtx context.Context
)

// cmdContext is cancelled by the first Ctrl-C or SIGTERM: no new file or
// repository starts, and those in flight finish. Every call returns the
// same context.
func cmdContext() context.Context {
	listen()
	return stopCtx
}

// abortContext is cancelled by the second: the files and repositories in
// flight stop too, at their next safe point. An analysis stops between
// rules and a network git at once; a write, a commit and its report line
// are finished (milliseconds), so the run still reports every file it
// wrote, leaves no temporary file, and puts every repository back on its
// branch. The process does not exit from the signal itself: it returns
// through the commands, which print their summary.
func abortContext() context.Context {
	listen()
	return abortCtx
}

func listen() {
	sigOnce.Do(func() {
		abort, cancelAbort := context.WithCancel(context.Background())
		stop, cancelStop := context.WithCancel(abort)
		stopCtx, abortCtx = stop, abort
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-ch
			fmt.Fprintln(os.Stderr, "\nloratune-fix: interrupted; finishing the work in flight (Ctrl-C again to stop it)")
			cancelStop()
			<-ch
			fmt.Fprintln(os.Stderr, "\nloratune-fix: stopping; finishing only the writes and commits under way")
			cancelAbort()
			for range ch { // later signals: the run is ending already
			}
		}()
	})
}

// interrupted reports whether the run was stopped by a signal.
func interrupted() bool { return stopCtx != nil && stopCtx.Err() != nil }
