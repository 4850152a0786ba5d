package identity

import (
	"bytes"
	"crypto"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkSignVerify measures what every proxied read pays: one Sign at
// the aggregator and one Verify at the backend, both answered from their
// caches after the first.
func BenchmarkSignVerify(b *testing.B) {
	for name, key := range map[string]crypto.Signer{"ES256": newECKey(b), "EdDSA": newEdKey(b)} {
		b.Run(name, func(b *testing.B) {
			s := newSigner(b, key, testIssuer)
			v := newVerifier(b, t0, key.Public())
			r := httpRequest("GET", target)
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

// BenchmarkSignVerifyWrite measures what a write pays: an assertion signed
// and verified anew, its body hashed on both sides, its jti remembered.
func BenchmarkSignVerifyWrite(b *testing.B) {
	for _, size := range []int{1 << 10, MaxBodyBytes} {
		body := bytes.Repeat([]byte("x"), size)
		for name, key := range map[string]crypto.Signer{"ES256": newECKey(b), "EdDSA": newEdKey(b)} {
			b.Run(name+"/"+byteSize(size), func(b *testing.B) {
				s := newSigner(b, key, testIssuer)
				v, err := NewVerifier(VerifierConfig{Keys: []crypto.PublicKey{key.Public()}, Issuer: testIssuer, Audience: testAudience, Now: at(t0), MaxWrites: 1 << 30})
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					out := httptest.NewRequest(http.MethodPost, bindingsPath, bytes.NewReader(body))
					out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
					token, err := s.Sign(alice, testAudience, out)
					if err != nil {
						b.Fatal(err)
					}
					in := httptest.NewRequest(http.MethodPost, bindingsPath, bytes.NewReader(body))
					if _, err := v.Verify(token, in); err != nil {
						b.Fatal(err)
					}
					if _, err := io.Copy(io.Discard, in.Body); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}
