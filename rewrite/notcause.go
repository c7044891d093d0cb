package rewrite

// NotCause is something taken for a cause of NaN training that is not
// one: `loratune-fix rules` says so, and no rule reports it.
type NotCause struct{ What, Why string }

// NotCauses are the red herrings of DOMAIN.md §12.
func NotCauses() []NotCause {
	return []NotCause{
		{`Qwen2's warning "Sliding Window Attention is enabled but not implemented for sdpa"`,
			"it fires even where the config turns sliding windows off (transformers PR 36316) and changes nothing in training; leave the attention as it is for it"},
		{"label smoothing (label_smoothing_factor)",
			"it raises the loss floor and changes the logged value, but makes no NaN and no loss of 0.0: look for the rules' causes instead"},
	}
}
