package rewrite

import (
	"testing"

	"github.com/uds-migrate/uds-migrate/evidence"
)

// TestBasisEvidenceName: package finding cannot import evidence (report
// would then depend on it), so it spells evidence's source name itself.
func TestBasisEvidenceName(t *testing.T) {
	if BasisEvidence != evidence.SourceName {
		t.Errorf("finding.BasisEvidence = %q, evidence.SourceName = %q", BasisEvidence, evidence.SourceName)
	}
}
