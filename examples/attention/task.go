package main

import "math/rand/v2"

// The task: each sequence is a run of random tokens, and the answer at each
// position is the token seen lag steps earlier. Nothing about a position
// says what that token was except the token lag places back, so a model has
// to look back to solve it: no per-position rule does better than chance
// (1/vocab). Sequences have mixed lengths and are padded on the left, so that
// under the causal mask a real position could see padding if the padding
// mask did not hide it; the first lag real positions of each sequence have
// no answer and are left out of the loss and the accuracy.

// padToken fills the positions before a sequence starts.
const padToken = 0

// task describes the sequences.
type task struct {
	vocab  int // real tokens are 1..vocab
	seqLen int // positions per sequence, padding included
	minLen int // shortest real sequence
	lag    int // the answer at position i is the token at i-lag
}

// sequence is one padded example.
type sequence struct {
	tokens  []int  // seqLen tokens, padToken before the sequence starts
	keep    []bool // true on real positions (the padding mask)
	targets []int  // the answer, 1..vocab, or -1 where there is none
}

// sample draws one sequence.
func (t task) sample(rng *rand.Rand) sequence {
	n := t.minLen + rng.IntN(t.seqLen-t.minLen+1)
	start := t.seqLen - n
	s := sequence{tokens: make([]int, t.seqLen), keep: make([]bool, t.seqLen), targets: make([]int, t.seqLen)}
	for i := range s.tokens {
		s.targets[i] = -1
		if i < start {
			continue
		}
		s.tokens[i] = 1 + rng.IntN(t.vocab)
		s.keep[i] = true
		if i-t.lag >= start {
			s.targets[i] = s.tokens[i-t.lag]
		}
	}
	return s
}

// dataset draws n sequences.
func (t task) dataset(rng *rand.Rand, n int) []sequence {
	out := make([]sequence, n)
	for i := range out {
		out[i] = t.sample(rng)
	}
	return out
}
