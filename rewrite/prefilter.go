package rewrite

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"

	"github.com/loratune/loratune-fix/semantic"
)

// The prefilter decides, from the text alone, whether a file can hold
// anything for the selected rules, so that most files of a tree are never
// parsed.

// gate is one rule's prefilter: any of words, and, for a TrainingOnly rule,
// any of trainingWords too. Words are indexes into Engine.words, so that a
// word shared by several rules is searched once per file.
type gate struct {
	words    []int
	also     []int // Rule.Also: one of these too, when set
	training bool
}

// buildPrefilter indexes the trigger words of the engine's rules: one
// gate per rule, each distinct word once, and the anchor bytes that find
// them.
func (e *Engine) buildPrefilter() error {
	index := map[string]int{}
	ids := func(words []string) []int {
		var out []int
		for _, w := range words {
			i, ok := index[w]
			if !ok {
				i = len(e.words)
				index[w] = i
				e.words = append(e.words, []byte(w))
			}
			out = append(out, i)
		}
		return out
	}
	e.trainingIDs = ids(trainingWords)
	for _, r := range e.rules {
		if slices.Contains(r.Triggers, "") || slices.Contains(r.Also, "") {
			return fmt.Errorf("rule %s: an empty prefilter word", r.Code)
		}
		e.gates = append(e.gates, gate{words: ids(r.Triggers), also: ids(r.Also), training: r.TrainingOnly})
	}
	var triggers []int // every gate's words, searched first
	seen := map[int]bool{}
	for _, g := range e.gates {
		for _, i := range g.words {
			if !seen[i] {
				seen[i] = true
				triggers = append(triggers, i)
			}
		}
	}
	e.anchors = anchorWords(e.words, triggers)
	return nil
}

// MayMatch is the prefilter: false means no selected rule can find
// anything, so the file need not be parsed. It is decided in two steps:
// one search for the trigger words of every rule (most files of a tree
// hold none, and are done), then, for the rules whose triggers are there,
// their Also words and the training signal, each searched once and only
// when asked.
func (e *Engine) MayMatch(text []byte) bool {
	// found[i]: 0 not searched yet, 1 present, 2 absent, for each of e.words.
	var small [64]uint8
	var found []uint8
	if len(e.words) <= len(small) {
		found = small[:len(e.words)]
	} else {
		found = make([]uint8, len(e.words))
	}
	e.search(text, found)
	triggered := false
	for _, g := range e.gates {
		for _, i := range g.words {
			triggered = triggered || found[i] == 1
		}
	}
	if !triggered {
		return false
	}
	has := func(i int) bool {
		if found[i] == 0 {
			found[i] = 2
			if bytes.Contains(text, e.words[i]) {
				found[i] = 1
			}
		}
		return found[i] == 1
	}
	anyOf := func(ids []int) bool {
		for _, i := range ids {
			if has(i) {
				return true
			}
		}
		return false
	}
	training := -1 // -1: not looked at yet
	for _, g := range e.gates {
		if !anyOf(g.words) || len(g.also) > 0 && !anyOf(g.also) {
			continue
		}
		if !g.training {
			return true
		}
		if training < 0 {
			training = 0
			if anyOf(e.trainingIDs) || hasTrainingCall(text) {
				training = 1
			}
		}
		if training == 1 {
			return true
		}
	}
	return false
}

// anchor is a byte and the words (at most 64) searched by it: one
// vectorised IndexByte pass finds each occurrence of the byte, and two
// table lookups on the bytes around it (prev, next: bit k set when
// words[k] allows that byte there) leave the few words worth comparing.
// Words that share a byte share a pass: "_" anchors every snake_case
// trigger word at once.
type anchor struct {
	b          byte
	words      []anchored
	prev, next [256]uint64
}

// anchored is a word (an index into Engine.words) and where in it the
// anchor byte lies.
type anchored struct{ id, off int }

// passCost is what one IndexByte pass over a text costs, counted in stops
// at a byte of the text (a stop costs some 5 ns, a pass some 8 ns per 100
// bytes: measured on the haystack of bench/run.sh).
const passCost = 1300

// anchorWords chooses the anchor bytes of words[ids...]: greedily, the
// byte that covers the most words left per unit of cost (a pass plus its
// stops), until every word is covered.
func anchorWords(words [][]byte, ids []int) []anchor {
	freq := semantic.FreqOf
	left := append([]int(nil), ids...)
	var out []anchor
	for len(left) > 0 {
		best, bestScore := byte(0), -1.0
		for b := 0; b < 256; b++ {
			n := 0
			for _, id := range left {
				if bytes.IndexByte(words[id], byte(b)) >= 0 {
					n++
				}
			}
			if score := float64(n) / float64(passCost+freq(byte(b))); n > 0 && score > bestScore {
				best, bestScore = byte(b), score
			}
		}
		a := anchor{b: best}
		var rest []int
		for _, id := range left {
			off := bytes.IndexByte(words[id], best)
			if off < 0 || len(a.words) == 64 {
				rest = append(rest, id)
				continue
			}
			bit := uint64(1) << len(a.words)
			a.words = append(a.words, anchored{id, off})
			w := words[id]
			for c := range 256 {
				if off == 0 || w[off-1] == byte(c) {
					a.prev[c] |= bit
				}
				if off == len(w)-1 || w[off+1] == byte(c) {
					a.next[c] |= bit
				}
			}
		}
		out = append(out, a)
		left = rest
	}
	return out
}

// search sets found[i] to 1 for each anchored word that text contains,
// and to 2 for each that it does not.
func (e *Engine) search(text []byte, found []uint8) {
	for ai := range e.anchors {
		a := &e.anchors[ai]
		left := uint64(1)<<len(a.words) - 1
		if len(a.words) == 64 {
			left = ^uint64(0)
		}
		for p := 0; left != 0 && p < len(text); p++ {
			i := bytes.IndexByte(text[p:], a.b)
			if i < 0 {
				break
			}
			p += i
			// Beyond either end reads as 0, a byte no word holds.
			var before, after byte
			if p > 0 {
				before = text[p-1]
			}
			if p+1 < len(text) {
				after = text[p+1]
			}
			for cand := a.prev[before] & a.next[after] & left; cand != 0; cand &= cand - 1 {
				k := bits.TrailingZeros64(cand)
				w := a.words[k]
				word := e.words[w.id]
				start := p - w.off
				if start >= 0 && start+len(word) <= len(text) && bytes.Equal(text[start:start+len(word)], word) {
					found[w.id] = 1
					left &^= 1 << k
				}
			}
		}
		for k, w := range a.words {
			if left&(1<<k) != 0 {
				found[w.id] = 2
			}
		}
	}
}
