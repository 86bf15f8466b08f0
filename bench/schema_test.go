package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/schematest"
)

// The JSON output follows docs/bench.schema.json, one client or several;
// the schema rejects another version, so the check can fail.
func TestJSONFollowsSchema(t *testing.T) {
	s := schematest.Compile(t, "../docs/bench.schema.json")
	one := testReport(t)
	two, err := analyzeClients([]Client{&fakeClient{name: "pgbench"}, &fakeClient{name: "pgx"}},
		[][]Round{steady(MinRounds, 1.1), steady(MinRounds, 1.2)}, Machine{Cores: 2, LoadBefore: -1, LoadAfter: -1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	two.Mode, two.Conns = Simple, 4
	two.Floor = &Floor{TCPUS: 30, SocketUS: 20, SavedUS: 10, Samples: 4000, Placement: "two CPUs",
		Workload: &RoundTrip{TCPUS: 90, SocketUS: 80, SavedUS: 10, Samples: 2000},
		Placements: []PlacementFloor{{Placement: "one CPU", TCPUS: 8, SocketUS: 5, SavedUS: 3, Workload: &RoundTrip{TCPUS: 40, SocketUS: 35, SavedUS: 5, Samples: 2000}},
			{Placement: "two CPUs", TCPUS: 30, SocketUS: 20, SavedUS: 10, Workload: &RoundTrip{TCPUS: 90, SocketUS: 80, SavedUS: 10, Samples: 2000}}}}
	for i := range two.Clients {
		two.Clients[i].Transports[0].MsPerTransaction = 0.3 // the fake rounds carry no latencies
		two.Clients[i].Limit = limitFor(two.Floor, &two.Clients[i], two.QueriesPerTransaction)
	}
	if two.Clients[0].Limit == nil {
		t.Fatal("no limit to validate")
	}
	three := *two
	three.Floor = &Floor{TCPUS: 30, SocketUS: 20, SavedUS: 10, Samples: 4000, Placement: "unpinned", Unpinned: "no affinity",
		WorkloadSkipped: "a statement of the workload took 900.0 ms over TCP"}
	for _, r := range []*Report{one, two, &three} {
		var b bytes.Buffer
		if err := r.Render(&b, "json"); err != nil {
			t.Fatal(err)
		}
		if err := schematest.Validate(s, b.Bytes()); err != nil {
			t.Errorf("%v\n%s", err, b.String())
		}
		v2 := strings.Replace(b.String(), "uds-migrate.bench/v1", "uds-migrate.bench/v2", 1)
		if schematest.Validate(s, []byte(v2)) == nil {
			t.Error("a report of another schema version validated")
		}
	}
}
