package main

import (
	"bufio"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// dockerBuild runs the build stage's go build: with -trimpath it compiles
// every package afresh (minutes), so CI runs it as its own step (go tool
// task docker-check) rather than inside the suite's timeout.
var dockerBuild = flag.Bool("docker-build", false, "also run the Dockerfile's go build (go tool task docker-check)")

// dockerStage is one FROM of the Dockerfile: its image, name and lines.
type dockerStage struct {
	from, name string
	lines      []string // instructions, continuation lines joined
}

func dockerStages(t *testing.T) []dockerStage {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages []dockerStage
	var joined string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			joined += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line, joined = joined+line, ""
		if f := strings.Fields(line); f[0] == "FROM" {
			st := dockerStage{from: f[1]}
			if len(f) == 4 && strings.EqualFold(f[2], "AS") {
				st.name = f[3]
			}
			stages = append(stages, st)
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("Dockerfile: %q before any FROM", line)
		}
		stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return stages
}

func instruction(st dockerStage, word string) []string {
	var out []string
	for _, l := range st.lines {
		if rest, ok := strings.CutPrefix(l, word+" "); ok {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

// No container engine is needed to know the Dockerfile builds the shop:
// the build stage's Go is go.mod's, its asset step copies what `task deps`
// copies, and its `go build` command, run here with -docker-build, builds
// a shop that answers.
// The final stage runs as a non-root user with a health check, and holds
// the binary alone.
func TestDockerfileBuildsTheShop(t *testing.T) {
	stages := dockerStages(t)
	if len(stages) != 3 || stages[0].name != "assets" || stages[1].name != "build" {
		t.Fatalf("stages %+v: want assets, build and the image", stages)
	}
	assets, build, image := stages[0], stages[1], stages[2]

	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if goVersion == nil || build.from != "golang:"+string(goVersion[1])+"-bookworm" {
		t.Errorf("build stage FROM %s; go.mod says go %s", build.from, goVersion[1])
	}

	taskfile, err := os.ReadFile("Taskfile.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"node_modules/htmx.org/dist/htmx.min.js", "node_modules/@picocss/pico/css/pico.min.css"} {
		if !strings.Contains(string(taskfile), "cp "+file+" ") || !strings.Contains(strings.Join(instruction(assets, "RUN"), "\n"), "cp "+file+" ") {
			t.Errorf("%s: the Taskfile and the Dockerfile's assets stage should both copy it", file)
		}
	}
	if !strings.Contains(strings.Join(instruction(assets, "RUN"), "\n"), "npm ci --omit=dev") {
		t.Error("the assets stage should install npm's dependencies only (no DynamoDB Local, no test tools)")
	}

	var goBuild string
	for _, run := range instruction(build, "RUN") {
		if strings.Contains(run, "go build") {
			goBuild = run
		}
	}
	if !strings.Contains(goBuild, "CGO_ENABLED=0") || !strings.Contains(goBuild, "-o /out/shop .") {
		t.Fatalf("build stage's go build: %q", goBuild)
	}
	if *dockerBuild {
		bin := filepath.Join(t.TempDir(), "shop")
		cmd := exec.Command("sh", "-c", strings.Replace(goBuild, "-o /out/shop", "-o "+bin, 1))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", goBuild, err, out)
		}
		if out, err := exec.Command(bin, "healthcheck", "-h").CombinedOutput(); err != nil || !strings.Contains(string(out), "Usage: shop healthcheck") {
			t.Fatalf("the image's binary: %v\n%s", err, out)
		}
	}

	if user := instruction(image, "USER"); len(user) != 1 || strings.HasPrefix(user[0], "root") || strings.HasPrefix(user[0], "0") {
		t.Errorf("image USER %q: want one non-root user", user)
	}
	if hc := instruction(image, "HEALTHCHECK"); len(hc) != 1 || !strings.Contains(hc[0], `"shop", "healthcheck"`) {
		t.Errorf("image HEALTHCHECK %q", hc)
	}
	copies := instruction(image, "COPY")
	if len(copies) != 1 || copies[0] != "--from=build /out/shop /usr/local/bin/shop" {
		t.Errorf("the image copies %q: want the binary alone", copies)
	}
	env := strings.Join(instruction(image, "ENV"), " ")
	for _, want := range []string{"DYNAMODB_ENDPOINT=aws", "SHOP_DEMO=false", "SHOP_ADDR=0.0.0.0:8080"} {
		if !strings.Contains(env, want) {
			t.Errorf("image ENV lacks %s", want)
		}
	}
	if strings.Contains(strings.ToLower(strings.Join(image.lines, "\n")), "java") {
		t.Error("the image mentions Java: production uses DynamoDB")
	}
}

func TestHealthcheckCommand(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	var out strings.Builder
	if err := healthcheck(context.Background(), addr, &out); err != nil || !strings.Contains(out.String(), "200 OK") {
		t.Fatalf("healthy: %v %q", err, out.String())
	}
	// A wildcard listen address is asked on loopback.
	_, port, _ := strings.Cut(addr, ":")
	if err := healthcheck(context.Background(), "0.0.0.0:"+port, &out); err != nil {
		t.Fatalf("0.0.0.0: %v", err)
	}
	status = http.StatusServiceUnavailable
	if err := healthcheck(context.Background(), addr, &out); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("unhealthy: %v", err)
	}
	if err := healthcheck(context.Background(), "no-port", &out); err == nil {
		t.Fatal("a bad address is no error")
	}
}
