package vsphere

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func unit(u int32) *int32 { return &u }

func dataDisks(n, ctrl int) []VDisk {
	out := []VDisk{{Name: "boot", SizeGB: 20, Provisioning: Thin}}
	for range n {
		out = append(out, VDisk{Name: "data", SizeGB: 10, Provisioning: EagerZeroedThick, Controller: ctrl})
	}
	return out
}

func TestBuiltinLayouts(t *testing.T) {
	if got := Roles(); !slices.Equal(got, []string{"block-worker", "sqlserver", "sysbench"}) {
		t.Fatalf("Roles() = %v", got)
	}
	cases := []struct {
		role     string
		cpu      int32
		memMB    int64
		ctrl     string
		sizes    []int64
		provs    []Provisioning
		reserved int64
		thin     int64
	}{
		{"sysbench", 16, 61440, "lsilogic-sas", []int64{92, 447, 270}, []Provisioning{Thin, Thick, EagerZeroedThick}, 717, 92},
		{"sqlserver", 16, 65536, "lsilogic-sas", []int64{100, 500}, []Provisioning{Thin, EagerZeroedThick}, 500, 100},
		{"block-worker", 4, 8192, "pvscsi", []int64{16, 100}, []Provisioning{Thin, EagerZeroedThick}, 100, 16},
	}
	for _, c := range cases {
		l, err := LayoutFor(c.role)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", c.role, err)
		}
		if l.Role != c.role || l.NumCPU != c.cpu || l.MemoryMB != c.memMB || l.Controller != c.ctrl {
			t.Errorf("%s: %d vCPU %d MB %s", c.role, l.NumCPU, l.MemoryMB, l.Controller)
		}
		var sizes []int64
		var provs []Provisioning
		for _, d := range l.Disks {
			sizes = append(sizes, d.SizeGB)
			provs = append(provs, d.Provisioning)
		}
		if !slices.Equal(sizes, c.sizes) || !slices.Equal(provs, c.provs) {
			t.Errorf("%s: disks %v %v", c.role, sizes, provs)
		}
		if r, th := l.DiskGB(); r != c.reserved || th != c.thin {
			t.Errorf("%s: DiskGB = %d, %d", c.role, r, th)
		}
		// LayoutFor returns a copy.
		l.Disks[0].SizeGB = 1
		if again, _ := LayoutFor(c.role); again.Disks[0].SizeGB == 1 {
			t.Errorf("%s: LayoutFor shares its disks slice", c.role)
		}
	}
	_, err := LayoutFor("oracle")
	mustContain(t, err, `"oracle"`, "block-worker, sqlserver, sysbench")
}

func TestLayoutValidate(t *testing.T) {
	base := func(disks []VDisk) Layout {
		return Layout{Role: "t", NumCPU: 4, MemoryMB: 4096, Controller: "lsilogic-sas", Disks: disks}
	}
	cases := []struct {
		name   string
		layout Layout
		want   []string // substrings of the error; nil = valid
	}{
		{"15 disks on one controller", base(dataDisks(15, 0)), nil},
		{"16 disks on one controller", base(dataDisks(16, 0)), []string{"16 disks", "at most 15"}},
		{"unit 7", base(append(dataDisks(1, 0), VDisk{Name: "x", SizeGB: 1, Provisioning: Thin, Unit: unit(7)})), []string{"unit 7"}},
		{"unit 16", base(append(dataDisks(1, 0), VDisk{Name: "x", SizeGB: 1, Provisioning: Thin, Unit: unit(16)})), []string{"unit 16", "0-15"}},
		{"duplicate units", base([]VDisk{
			{Name: "boot", SizeGB: 20, Provisioning: Thin},
			{Name: "a", SizeGB: 1, Provisioning: Thin, Unit: unit(3)},
			{Name: "b", SizeGB: 1, Provisioning: Thin, Unit: unit(3)},
		}), []string{"disks 1 and 2 both use unit 3"}},
		{"same unit on different controllers", base([]VDisk{
			{Name: "boot", SizeGB: 20, Provisioning: Thin},
			{Name: "a", SizeGB: 1, Provisioning: Thin, Unit: unit(3)},
			{Name: "b", SizeGB: 1, Provisioning: Thin, Unit: unit(3), Controller: 1},
		}), nil},
		{"4 controllers", base(append(dataDisks(1, 0), VDisk{Name: "b", SizeGB: 1, Provisioning: Thin, Controller: 1},
			VDisk{Name: "c", SizeGB: 1, Provisioning: Thin, Controller: 2})), nil},
		{"5 controllers", base(append(dataDisks(1, 0), VDisk{Name: "b", SizeGB: 1, Provisioning: Thin, Controller: 1},
			VDisk{Name: "c", SizeGB: 1, Provisioning: Thin, Controller: 2}, VDisk{Name: "d", SizeGB: 1, Provisioning: Thin, Controller: 3})),
			[]string{"5 SCSI controllers", "at most 4"}},
		{"unused controller index", base(append(dataDisks(0, 0), VDisk{Name: "b", SizeGB: 1, Provisioning: Thin, Controller: 1})),
			[]string{"new controller 0 has no disks"}},
		{"zero size", base([]VDisk{{Name: "boot", SizeGB: 0, Provisioning: Thin}}), []string{"size 0 GB"}},
		{"negative size", base(append(dataDisks(0, 0), VDisk{Name: "d", SizeGB: -5, Provisioning: Thin})), []string{"size -5 GB"}},
		{"bad provisioning", base([]VDisk{{Name: "boot", SizeGB: 1, Provisioning: "sparse"}}), []string{`"sparse"`}},
		{"no disks", base(nil), []string{"no disks"}},
		{"boot unit pinned", base([]VDisk{{Name: "boot", SizeGB: 1, Provisioning: Thin, Unit: unit(0)}}), []string{"boot disk"}},
		{"unknown controller", Layout{Role: "t", NumCPU: 1, MemoryMB: 4, Controller: "nvme", Disks: dataDisks(1, 0)}, []string{`"nvme"`}},
		{"memory not multiple of 4", Layout{Role: "t", NumCPU: 1, MemoryMB: 1023, Controller: "pvscsi", Disks: dataDisks(0, 0)}, []string{"multiple of 4"}},
		{"no cpu", Layout{Role: "t", NumCPU: 0, MemoryMB: 4, Disks: dataDisks(0, 0)}, []string{"NumCPU is 0"}},
		{"cores per socket", Layout{Role: "t", NumCPU: 6, CoresPerSocket: 4, MemoryMB: 4, Disks: dataDisks(0, 0)}, []string{"CoresPerSocket 4"}},
		{"latency high without reservation", Layout{Role: "t", NumCPU: 1, MemoryMB: 4, Disks: dataDisks(0, 0), LatencySensitivity: LatencyHigh},
			[]string{"latency sensitivity high needs a full memory reservation"}},
		{"unknown latency level", Layout{Role: "t", NumCPU: 1, MemoryMB: 4, Disks: dataDisks(0, 0), LatencySensitivity: "medium", ReserveMemory: true},
			[]string{`latency sensitivity "medium" is not one of normal, high`}},
		{"every problem reported", Layout{Role: "t", NumCPU: 0, MemoryMB: 3, Disks: []VDisk{{Name: "boot"}}}, []string{"NumCPU", "MemoryMB", "size 0", "provisioning"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.layout.Validate()
			if c.want == nil {
				if err != nil {
					t.Fatalf("valid layout refused: %v", err)
				}
				return
			}
			mustContain(t, err, c.want...)

			// Refused before any vSphere call: a Session with no client
			// would panic on the first call.
			spec := ProvisionSpec{CampaignID: "c", Layout: c.layout, Count: 1, Template: "t", Datastores: []string{"ds"}}
			var s Session
			if _, err := s.Provision(context.Background(), spec, nil); err == nil || !strings.Contains(err.Error(), "nothing was created") {
				t.Fatalf("Provision: %v", err)
			}
			if _, err := s.Preflight(context.Background(), spec); err == nil {
				t.Fatal("Preflight accepted an invalid layout")
			}
		})
	}
}

func TestPlacementUnits(t *testing.T) {
	l := Layout{Role: "t", NumCPU: 1, MemoryMB: 4, Controller: "lsilogic-sas", Disks: dataDisks(15, 0)}
	pl, err := l.Placement()
	if err != nil {
		t.Fatal(err)
	}
	var units []int32
	for _, p := range pl[1:] {
		units = append(units, p.Unit)
	}
	want := []int32{0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15}
	if !slices.Equal(units, want) {
		t.Fatalf("units %v, want %v", units, want)
	}
	if !pl[0].Boot || pl[0].Unit != -1 {
		t.Fatalf("boot placement %+v", pl[0])
	}

	// Pinned units are kept and skipped by the computed ones.
	l.Disks = []VDisk{
		{Name: "boot", SizeGB: 1, Provisioning: Thin},
		{Name: "a", SizeGB: 1, Provisioning: Thin},
		{Name: "b", SizeGB: 1, Provisioning: Thin, Unit: unit(0)},
		{Name: "c", SizeGB: 1, Provisioning: Thin},
		{Name: "d", SizeGB: 1, Provisioning: Thin, Controller: 1},
	}
	pl, err = l.Placement()
	if err != nil {
		t.Fatal(err)
	}
	got := []int32{pl[1].Unit, pl[2].Unit, pl[3].Unit, pl[4].Unit}
	if !slices.Equal(got, []int32{1, 0, 2, 0}) || pl[4].NewController != 1 || l.NewControllers() != 2 {
		t.Fatalf("units %v, controller of d %d, controllers %d", got, pl[4].NewController, l.NewControllers())
	}
}

// TestSwapFollowsReservation: vSphere's swap file is memory minus
// reservation, rounded up to a GiB.
func TestSwapFollowsReservation(t *testing.T) {
	cases := []struct {
		memMB   int64
		reserve bool
		swapGB  int64
		resMB   int64
	}{
		{61440, false, 60, 0},
		{61440, true, 0, 61440},
		{1028, false, 2, 0},
	}
	for _, c := range cases {
		l := Layout{MemoryMB: c.memMB, ReserveMemory: c.reserve}
		if l.SwapGB() != c.swapGB || l.MemoryReservationMB() != c.resMB {
			t.Errorf("%+v: swap %d GB reservation %d MB, want %d %d", c, l.SwapGB(), l.MemoryReservationMB(), c.swapGB, c.resMB)
		}
	}
}
