package authz

import (
	"context"
	"errors"
	"testing"
)

func TestBuildChainRefuses(t *testing.T) {
	cases := map[string]Config{
		"duplicate":            {AuthorizationModes: []string{ModeAlwaysDeny, ModeAlwaysDeny}},
		"unknown":              {AuthorizationModes: []string{"ABAC"}},
		"none":                 {},
		"webhook without url":  {AuthorizationModes: []string{ModeWebhook}},
		"rbac without API":     {AuthorizationModes: []string{ModeRBAC}},
		"duplicate after good": {AuthorizationModes: []string{ModeAlwaysAllow, ModeRBAC, ModeAlwaysAllow}},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			if _, _, err := buildChain(context.Background(), cfg, newRevisionFeed()); !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("buildChain = %v, want ErrInvalidConfig", err)
			}
		})
	}
}
