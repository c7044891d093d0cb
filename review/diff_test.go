package review

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDiffReadsAddedLinesOfEachFile(t *testing.T) {
	diff := `diff --git a/train.py b/train.py
index 1111111..2222222 100644
--- a/train.py
+++ b/train.py
@@ -3,0 +4,2 @@ import torch
+x = 1
+y = 2
@@ -10 +12 @@ def main():
-    device_map="cuda",
+    device_map="auto",
@@ -20,2 +22,0 @@
-gone = 1
-gone = 2
diff --git a/old.py b/renamed.py
similarity index 90%
rename from old.py
rename to renamed.py
--- a/old.py
+++ b/renamed.py
@@ -1,3 +1,3 @@
 a = 1
-b = 2
+b = 3
 c = 4
\ No newline at end of file
diff --git a/deleted.py b/deleted.py
deleted file mode 100644
--- a/deleted.py
+++ /dev/null
@@ -1 +0,0 @@
-print(1)
diff --git a/new.py b/new.py
new file mode 100644
--- /dev/null
+++ b/new.py
@@ -0,0 +1,3 @@
+a
+
+c
diff --git a/model.bin b/model.bin
Binary files a/model.bin and b/model.bin differ
`
	got, err := ParseDiff(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Range{
		"train.py":   {{4, 5}, {12, 12}},
		"renamed.py": {{2, 2}},
		"new.py":     {{1, 3}},
		"model.bin":  nil,
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", keys(got), want)
	}
	for path, ranges := range want {
		fd := got[path]
		if fd == nil {
			t.Errorf("%s missing", path)
			continue
		}
		if !reflect.DeepEqual(fd.Added, ranges) {
			t.Errorf("%s: added %v, want %v", path, fd.Added, ranges)
		}
	}
	if !got["model.bin"].Binary {
		t.Error("model.bin: not marked binary")
	}
	if got["renamed.py"].OldPath != "old.py" {
		t.Errorf("renamed.py: old path %q", got["renamed.py"].OldPath)
	}
	fd := got["train.py"]
	if !fd.Covers(4, 5) || fd.Covers(4, 6) || !fd.Has(12) || fd.Has(13) {
		t.Errorf("Covers/Has wrong for %v", fd.Added)
	}
}

func TestParseDiffReadsPlainDiffU(t *testing.T) {
	diff := "--- train.py\t2026-01-01 00:00:00\n+++ train.py\t2026-01-02 00:00:00\n@@ -1,2 +1,2 @@\n-a\n+b\n \n" +
		"--- other.py\n+++ other.py\n@@ -5 +5,2 @@\n-x\n+y\n+z\n"
	got, err := ParseDiff(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got["train.py"].Added, []Range{{1, 1}}) || !reflect.DeepEqual(got["other.py"].Added, []Range{{5, 6}}) {
		t.Errorf("got %+v %+v", got["train.py"], got["other.py"])
	}
}

func TestParseDiffRefusesABrokenHunk(t *testing.T) {
	for name, diff := range map[string]string{
		"short hunk":   "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n",
		"bad header":   "--- a/x.py\n+++ b/x.py\n@@ -1,x +1 @@\n a\n",
		"stray line":   "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n?b\n",
		"hunk no file": "@@ -1 +1 @@\n-a\n+b\n",
	} {
		if _, err := ParseDiff(strings.NewReader(diff)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func keys(m map[string]*FileDiff) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
