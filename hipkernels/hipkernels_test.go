package hipkernels

import (
	"debug/elf"
	"strings"
	"testing"
)

// e_flags machine numbers of the AMDGPU ELF ABI (EF_AMDGPU_MACH_AMDGCN_*).
var mach = map[string]uint32{"gfx906": 0x2f, "gfx908": 0x30, "gfx90a": 0x3f, "gfx940": 0x40, "gfx1030": 0x36}

// TestObjects checks that each embedded object is an amdhsa code object
// for its target, with the wavefront width of that target.
func TestObjects(t *testing.T) {
	for _, o := range Objects {
		f, err := elf.NewFile(strings.NewReader(o.Code))
		if err != nil {
			t.Errorf("%s: %v", o.Arch, err)
			continue
		}
		const emAMDGPU = 224
		if f.Machine != emAMDGPU || f.Type != elf.ET_DYN {
			t.Errorf("%s: machine %v type %v; want AMDGPU (224) ET_DYN", o.Arch, f.Machine, f.Type)
		}
		flags := uint32(0)
		if b := []byte(o.Code); len(b) >= 52 {
			flags = uint32(b[48]) | uint32(b[49])<<8 | uint32(b[50])<<16 | uint32(b[51])<<24 // e_flags
		}
		if got := flags & 0xff; got != mach[o.Arch] {
			t.Errorf("%s: EF_AMDGPU_MACH %#x; want %#x", o.Arch, got, mach[o.Arch])
		}
		wave, err := WaveSize(o.Code)
		want := 64
		if o.Arch == "gfx1030" {
			want = 32
		}
		if err != nil || wave != want {
			t.Errorf("%s: WaveSize = %d, %v; want %d", o.Arch, wave, err, want)
		}
	}
}

func TestFind(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"gfx90a:sramecc+:xnack-", "gfx90a"}, {"gfx906", "gfx906"}, {"gfx1030", "gfx1030"},
		{"gfx942:sramecc+:xnack-", ""}, {"gfx1100", ""}, {"", ""},
	} {
		o, err := Find(c.name)
		if o.Arch != c.want || (err == nil) != (c.want != "") {
			t.Errorf("Find(%q) = %q, %v; want %q", c.name, o.Arch, err, c.want)
		}
	}
}
