package authz

import (
	"context"
	"errors"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/revision"
)

func TestBuildChainRefuses(t *testing.T) {
	cases := map[string]Config{
		"duplicate":            {AuthorizationModes: []string{ModeAlwaysDeny, ModeAlwaysDeny}},
		"unknown":              {AuthorizationModes: []string{"Bogus"}},
		"node without API":     {AuthorizationModes: []string{ModeNode, ModeRBAC}},
		"abac without file":    {AuthorizationModes: []string{ModeABAC}},
		"casbin without files": {AuthorizationModes: []string{ModeCasbin}},
		"none":                 {},
		"webhook without url":  {AuthorizationModes: []string{ModeWebhook}},
		"rbac without API":     {AuthorizationModes: []string{ModeRBAC}},
		"duplicate after good": {AuthorizationModes: []string{ModeAlwaysAllow, ModeRBAC, ModeAlwaysAllow}},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := buildChain(context.Background(), cfg, revision.NewFeed()); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("buildChain = %v, want ErrInvalidConfig", err)
			}
		})
	}
}
