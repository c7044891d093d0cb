// Command reparse measures what the verifying re-parse of a fix's output
// costs against a parse from scratch (issue 27's per-file floor): for every
// *.py under DIR it parses the text, then tells a copy of the tree of one
// inserted comment line (at the start, the middle or near the end of the
// file, or of an empty edit) and parses the edited text with it, as
// rewrite's verification does, and prints the time of each against the
// fresh parses.
//
//	go run ./bench/reparse DIR [ROUNDS]
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: reparse DIR [ROUNDS]")
		os.Exit(2)
	}
	rounds := 3
	if len(os.Args) > 2 {
		rounds, _ = strconv.Atoi(os.Args[2])
	}
	var texts [][]byte
	err := filepath.WalkDir(os.Args[1], func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".py" {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts = append(texts, b)
		}
		return err
	})
	if err != nil || len(texts) == 0 {
		fmt.Fprintln(os.Stderr, "reparse: no scripts read:", err)
		os.Exit(1)
	}
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	fmt.Printf("%d scripts, %d rounds\n", len(texts), rounds)
	for _, c := range []struct {
		name  string
		where float64 // where the line goes, as a share of the file
		line  string
	}{{"empty edit at 0", 0, ""}, {"comment line at 0", 0, "# x\n"}, {"comment line at 1/2", 0.5, "# x\n"}, {"comment line at 19/20", 0.95, "# x\n"}} {
		var fresh, again time.Duration
		for range rounds {
			trees := make([]*sitter.Tree, len(texts))
			t0 := time.Now()
			for i, text := range texts {
				trees[i] = p.Parse(nil, text)
			}
			fresh += time.Since(t0)
			edited := make([][]byte, len(texts))
			told := make([]*sitter.Tree, len(texts))
			for i, text := range texts {
				at := bytes.LastIndexByte(text[:int(float64(len(text))*c.where)], '\n') + 1
				edited[i] = append(append(append([]byte{}, text[:at]...), c.line...), text[at:]...)
				told[i] = trees[i].Copy()
				pt := pointOf(text, at)
				end := pt
				if c.line != "" {
					end = sitter.Point{Row: pt.Row + 1}
				}
				told[i].Edit(sitter.EditInput{StartIndex: uint32(at), OldEndIndex: uint32(at), NewEndIndex: uint32(at + len(c.line)), StartPoint: pt, OldEndPoint: pt, NewEndPoint: end})
			}
			t0 = time.Now()
			for i := range texts {
				t := p.Parse(told[i], edited[i])
				if t.RootNode().HasError() != trees[i].RootNode().HasError() {
					fmt.Fprintln(os.Stderr, "reparse: a comment line changed a verdict")
					os.Exit(1)
				}
				t.Close()
			}
			again += time.Since(t0)
			for i := range texts {
				trees[i].Close()
				told[i].Close()
			}
		}
		fmt.Printf("%-22s parse %8.1f ms  re-parse %7.1f ms  (%.0f%% of a parse)\n", c.name,
			ms(fresh)/float64(rounds), ms(again)/float64(rounds), 100*float64(again)/float64(fresh))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pointOf is the row and byte column of offset in text.
func pointOf(text []byte, offset int) sitter.Point {
	line := bytes.LastIndexByte(text[:offset], '\n') + 1
	return sitter.Point{Row: uint32(bytes.Count(text[:offset], []byte("\n"))), Column: uint32(offset - line)}
}
