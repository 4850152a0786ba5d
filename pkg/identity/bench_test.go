package identity

import (
	"crypto"
	"testing"
)

// BenchmarkSignVerify measures what every proxied request pays: one Sign at
// the aggregator and one Verify at the backend.
func BenchmarkSignVerify(b *testing.B) {
	for name, key := range map[string]crypto.Signer{"ES256": newECKey(b), "EdDSA": newEdKey(b)} {
		b.Run(name, func(b *testing.B) {
			s := newSigner(b, key, testIssuer)
			v := newVerifier(b, t0, key.Public())
			r := request("GET", target)
			b.ReportAllocs()
			for b.Loop() {
				token, err := s.Sign(alice, testAudience, r)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := v.Verify(token, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
