package aggregator

import (
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/audit"
)

// startAudit opens the audit log when one is configured and returns the
// filters that feed it; without one, filters that pass requests on.
func (s *Server) startAudit(cfg Config) (audit.Filters, error) {
	pass := func(next http.Handler) http.Handler { return next }
	none := audit.Filters{Around: pass, AfterAuthentication: pass, AfterImpersonation: pass}
	if cfg.Audit.LogPath == "" || cfg.Audit.PolicyFile == "" {
		return none, nil
	}
	policy, err := audit.LoadPolicy(cfg.Audit.PolicyFile)
	if err != nil {
		return none, err
	}
	s.audit = audit.NewFileBackend(audit.FileConfig{Path: cfg.Audit.LogPath, MaxSizeMB: cfg.Audit.MaxSizeMB,
		MaxBackups: cfg.Audit.MaxBackups, MaxAgeDays: cfg.Audit.MaxAgeDays, BufferSize: cfg.Audit.BufferSize, Log: cfg.Log})
	return audit.NewFilters(audit.Config{Policy: policy, Backend: s.audit,
		LongRunning: requestinfo.IsLongRunning})
}
