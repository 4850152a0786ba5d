package authz

import (
	"context"
	"errors"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/revision"
)

func TestBuildChainRefuses(t *testing.T) {
	cases := map[string]Config{
		"duplicate":            {AuthorizationModes: []string{authz.ModeAlwaysDeny, authz.ModeAlwaysDeny}},
		"unknown":              {AuthorizationModes: []string{"Bogus"}},
		"node without API":     {AuthorizationModes: []string{authz.ModeNode, authz.ModeRBAC}},
		"abac without file":    {AuthorizationModes: []string{authz.ModeABAC}},
		"casbin without files": {AuthorizationModes: []string{authz.ModeCasbin}},
		"none":                 {},
		"webhook without url":  {AuthorizationModes: []string{authz.ModeWebhook}},
		"rbac without API":     {AuthorizationModes: []string{authz.ModeRBAC}},
		"duplicate after good": {AuthorizationModes: []string{authz.ModeAlwaysAllow, authz.ModeRBAC, authz.ModeAlwaysAllow}},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := buildChain(context.Background(), cfg, revision.NewFeed()); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("buildChain = %v, want ErrInvalidConfig", err)
			}
		})
	}
}
