package btfdiff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/internal/corpus"
)

func allReport(t *testing.T) *Report {
	t.Helper()
	a := mustLoad(t, corpus.ReferenceFile(t, "amd64.default.btf"), "")
	b := mustLoad(t, corpus.ReferenceFile(t, "amd64.all.btf"), "")
	return Compare(a, b)
}

func TestWriteText(t *testing.T) {
	r := allReport(t)
	var buf bytes.Buffer
	if err := r.WriteText(&buf, 3); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"FUNC             43913     44167      +254       102       356\n",
		"total           100050    123824    +23774       102     23876\n",
		"functions: 356 added, 102 removed, 0 changed\n",
		"  … 353 more\n",
		"  … 99 more\n",
		"named types: 12 added, 0 removed, 0 changed\n",
		"  + DATASEC .bss size=15675392 {VAR dummy_mapping @4096 size=4096, ",
		"more bytes)\n",
		"other types only in B (anonymous types, decl tags): 180\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	if !strings.HasSuffix(out, "\ndifferent\n") {
		t.Errorf("text report does not end in \"different\": %q", out[len(out)-40:])
	}
	if strings.Contains(out, "other types only in A") {
		t.Error("text report lists other types only in A; there are none")
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > maxTextKey+100 {
			t.Errorf("line of %d bytes not clipped: %.80s…", len(line), line)
		}
	}

}

func TestWriteTextEqual(t *testing.T) {
	b, _ := everyKind()
	s, err := FromBytes("every kind", b.bytes(binary.LittleEndian, 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Compare(s, s).WriteText(&buf, 0); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"A: every kind (33 types)\n",
		"DECL_TAG             2         2        +0         0         0\n",
		"functions: 0 added, 0 removed, 0 changed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "\nequal\n") {
		t.Errorf("equal report does not end in \"equal\":\n%s", out)
	}
}

func TestWriteJSON(t *testing.T) {
	r := allReport(t)
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Equal bool `json:"equal"`
		Report
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Equal || got.A.Types != 100050 || got.B.Types != 123824 {
		t.Errorf("equal=%v, types %d/%d", got.Equal, got.A.Types, got.B.Types)
	}
	if len(got.Functions.Added) != 356 || len(got.Functions.Removed) != 102 || len(got.OnlyB) != len(r.OnlyB) {
		t.Errorf("JSON lost entries: %d/%d functions, %d/%d only_b",
			len(got.Functions.Added), len(got.Functions.Removed), len(got.OnlyB), len(r.OnlyB))
	}
	if got.Functions.Changed == nil || got.Kinds[0].Kind != btf.KindInt {
		t.Errorf("changed = %v (want [] not null), first kind %v", got.Functions.Changed, got.Kinds[0].Kind)
	}
	for _, raw := range []string{`"kind": "FUNC"`, `"changed": []`, `"only_a": [`} {
		if !strings.Contains(buf.String(), raw) {
			t.Errorf("JSON lacks %s", raw)
		}
	}
}
