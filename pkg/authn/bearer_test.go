package authn

import (
	"net/http"
	"testing"
)

func TestBearerToken(t *testing.T) {
	cases := []struct {
		values  []string
		token   string
		present bool
		bad     bool
	}{
		{nil, "", false, false},
		{[]string{"Bearer abc.def"}, "abc.def", true, false},
		{[]string{"BEARER abc"}, "abc", true, false},
		{[]string{""}, "", true, true},
		{[]string{"Bearer"}, "", true, true},
		{[]string{"Bearer "}, "", true, true},
		{[]string{"Bearer  abc"}, "", true, true},
		{[]string{"Bearer abc def"}, "", true, true},
		{[]string{"Basic abc"}, "", true, true},
		{[]string{"Bearer a", "Bearer b"}, "", true, true},
	}
	for _, c := range cases {
		h := http.Header{}
		for _, v := range c.values {
			h.Add("Authorization", v)
		}
		token, present, err := bearerToken(h)
		if token != c.token || present != c.present || (err != nil) != c.bad {
			t.Errorf("%q: got %q %v %v", c.values, token, present, err)
		}
	}
}
