package retrieve

import "testing"

// TestNormalKey checks the streaming duplicate test against normalText,
// which it replaces on Fit's path.
func TestNormalKey(t *testing.T) {
	texts := []string{"", " ", "Hello  World", "hello world", " hello\tworld\n", "hello worl", "helloworld",
		"ÉCOLE  École", "école école", "a\u00a0b", "a b", "\xffX", "\xffx", "x"}
	for _, a := range texts {
		for _, b := range texts {
			checkNormal(t, a, b)
		}
	}
}

func checkNormal(t *testing.T, a, b string) {
	t.Helper()
	want := normalText(a) == normalText(b)
	if got := sameNormal(a, b); got != want {
		t.Fatalf("sameNormal(%q, %q) = %v, want %v", a, b, got, want)
	}
	if want && normalKey(a) != normalKey(b) {
		t.Fatalf("normalKey differs for %q and %q, whose normal texts are equal", a, b)
	}
}

func FuzzNormalKey(f *testing.F) {
	f.Add("Hello  World", "hello world")
	f.Add("a\u00a0b", "A B ")
	f.Fuzz(func(t *testing.T, a, b string) {
		checkNormal(t, a, b)
		checkNormal(t, a, a)
	})
}
