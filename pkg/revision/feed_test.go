package revision

import "testing"

// TestFeedSetOnlyForward: an older or equal revision neither changes the
// value nor wakes anyone; a newer one does both.
func TestFeedSetOnlyForward(t *testing.T) {
	f := NewFeed()
	f.Set(7)
	rev, changed := f.Current()
	if rev != 7 {
		t.Fatalf("Current = %d, want 7", rev)
	}
	f.Set(5)
	f.Set(7)
	if rev, _ := f.Current(); rev != 7 {
		t.Fatalf("after older Sets Current = %d, want 7", rev)
	}
	select {
	case <-changed:
		t.Fatal("woken by a revision that is not newer")
	default:
	}
	f.Set(9)
	select {
	case <-changed:
	default:
		t.Fatal("not woken by a newer revision")
	}
	if rev, _ := f.Current(); rev != 9 {
		t.Fatalf("Current = %d, want 9", rev)
	}
}

// TestFeedBump: each Bump counts one and wakes the waiters.
func TestFeedBump(t *testing.T) {
	f := NewFeed()
	_, changed := f.Current()
	f.Bump()
	f.Bump()
	select {
	case <-changed:
	default:
		t.Fatal("not woken by Bump")
	}
	if rev, _ := f.Current(); rev != 2 {
		t.Fatalf("Current = %d, want 2", rev)
	}
}
