package rewrite

import (
	"bytes"

	"github.com/loratune/loratune-fix/pyedit"
)

var sdpaBackendFence = &Rule{
	Code:         "LTF007",
	Name:         "sdpa-backend-fence",
	Summary:      "switch the cuDNN SDPA backend off once before training (the cheap alternative to LTF002)",
	Severity:     SeverityError,
	Profiles:     []string{ProfileLean},
	Triggers:     []string{"from_pretrained", "from_config"},
	TrainingOnly: true,
	Doc: `## What it does
Adds, once before training on every path (after the statement that holds
the training load, or before it when it holds the training too):
    if hasattr(torch.backends.cuda, "enable_cudnn_sdp"):
        torch.backends.cuda.enable_cudnn_sdp(False)
so SDPA keeps its flash and memory-efficient kernels but never picks cuDNN.
Part of --profile lean; select it on its own with --select LTF007.

## Why
torch 2.11 on Hopper picks cuDNN for SDPA, and cuDNN's backward returns
NaN for fully masked query rows (left padding). Reproduced on an H200:
switching cuDNN off cured it at the original's speed and memory. Forcing
one backend with sdpa_kernel([EFFICIENT_ATTENTION]) failed with "No
available kernel" on unpadded GQA batches, and the old
torch.backends.cuda.sdp_kernel(...) is deprecated: switch cuDNN off
instead.

## When it stays away
A file that already calls enable_cudnn_sdp. Files that do not train. A
file whose every training load is Gemma-2 and trains with eager attention
once LTF010 has run (it is in both profiles): SDPA never runs there.

## Cost
Little: fp32 masters with cuDNN off ran 9,501 tokens/s at 80.6 GiB against
8,789 and 91.5 GiB with eager (8B shape, batch 8, sequence 512, H200); at
sequence 192, bf16 with cuDNN off trained finite at the original's speed
and memory.

Measured by this project's GPU harness (docs/gpu-validation.md; H200,
8 layers of the 8B shape, batch 8): the lean profile (this fence, bf16
kept) trained finite at sequence 192 where the original went NaN, even
with left padding kept; it ran at 1.09x the original's tokens/s at
sequence 512 and 0.88x at 2048, with the same peak memory (1.00x). The
cost grows with length: "little" holds for short sequences.

## Evidence

| status | what was run |
| --- | --- |
| failure reproduced | on torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200: Llama-3.1 shapes, L = 192 (docs/gpu-validation.md) |
| cure shown | lean_left_pad (the fence alone, left padding kept) trains finite, 1.00x peak memory; not inserted under a Gemma-2 load that LTF010 makes eager |`,
	Run: runSDPABackendFence,
}

func runSDPABackendFence(p *Pass) {
	f := p.Facts
	if bytes.Contains(p.Src.Text, []byte("enable_cudnn_sdp")) {
		return
	}
	loads := f.TrainingLoads()
	if len(loads) == 0 || f.OffGPU() != "" {
		return // no cuDNN where training runs off the GPU
	}
	eager := 0
	for _, l := range loads {
		if gemma2MadeEager(p, l) {
			eager++
		}
	}
	if eager == len(loads) {
		return // every training load runs eager attention after LTF010's fix: no SDPA to fence
	}
	l := loads[0]
	fd := Finding{Start: l.Node.Start(), End: l.Args.End(),
		Message: "cuDNN SDPA's backward gives NaN on fully masked (left-padded) rows: switch the cuDNN backend off before training (keeps fast SDPA)"}
	torch, imp := pyedit.EnsureImport(f, "torch")
	lines := []string{
		"# loratune-fix LTF007: cuDNN SDPA's backward gives NaN on fully masked (left-padded) rows; keep SDPA, fence cuDNN off",
		"if hasattr(" + torch + ".backends.cuda, \"enable_cudnn_sdp\"):",
		"\t" + torch + ".backends.cuda.enable_cudnn_sdp(False)",
	}
	if e, ok := InsertBeforeTraining(f, l, lines); ok {
		fd.Fix = &Fix{Message: "switch the cuDNN SDPA backend off", Edits: append([]Edit{e}, imp...)}
	}
	p.Report(fd)
}
