package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shop/store/storetest"
)

func TestSessionKeys(t *testing.T) {
	hex64 := strings.Repeat("ab", 32)
	b64 := "YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNkZWY=" // 32 bytes
	for _, tc := range []struct {
		name, raw string
		keys      int
		bad       bool
	}{
		{"one hex", hex64, 1, false},
		{"rotation", hex64 + "," + b64, 2, false},
		{"spaces", " " + hex64 + " , ", 1, false},
		{"short", "abcd", 0, true},
		{"garbage", "not a key!", 0, true},
		{"empty list", ",,", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := sessionKeys(config{sessionKeys: tc.raw, dataDir: t.TempDir()})
			if (err != nil) != tc.bad || len(keys) != tc.keys {
				t.Fatalf("sessionKeys(%q) = %d keys, %v", tc.raw, len(keys), err)
			}
		})
	}
}

func TestSessionKeyIsGeneratedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	first, err := sessionKeys(config{dataDir: dir})
	if err != nil || len(first) != 1 || len(first[0]) != 64 {
		t.Fatalf("generated %v, %v", first, err)
	}
	st, err := os.Stat(filepath.Join(dir, "session-keys"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	again, err := sessionKeys(config{dataDir: dir})
	if err != nil || string(again[0]) != string(first[0]) {
		t.Fatal("the key changed on restart: every session would be lost")
	}
}

func TestParseConfig(t *testing.T) {
	t.Setenv("SHOP_TABLE", "from-env")
	cfg, cmd, err := parseConfig([]string{"migrate", "-addr", "127.0.0.1:9999"})
	if err != nil || cmd != "migrate" || cfg.table != "from-env" || cfg.addr != "127.0.0.1:9999" {
		t.Fatalf("parseConfig = %+v %q %v", cfg, cmd, err)
	}
	if _, cmd, _ := parseConfig(nil); cmd != "serve" {
		t.Fatalf("default command %q", cmd)
	}
	if _, _, err := parseConfig([]string{"-tz", "Mars/Olympus"}); err == nil {
		t.Fatal("unknown time zone accepted")
	}
}

func TestImportWorkbenchCommand(t *testing.T) {
	env := storetest.New(t)
	var out strings.Builder
	err := importWorkbench(context.Background(), env.Store, []string{"store/testdata/AnOnlineShop_14.json"}, &out)
	if err != nil || !strings.Contains(out.String(), "wrote 19 items, could not take 0") || !strings.Contains(out.String(), "warehouseItem p#99887/w#12376") {
		t.Fatalf("import-workbench: %v\n%s", err, out.String())
	}
	if err := importWorkbench(context.Background(), env.Store, []string{"no-such-file.json"}, &out); err == nil {
		t.Fatal("a missing file is not an error")
	}
}

func TestMain(m *testing.M) { storetest.Main(m) }
