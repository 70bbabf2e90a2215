package photos_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shop/store"
	"shop/store/photos"
	"shop/store/shelf"
	"shop/store/shelf/shelftest"
)

// TinyWebP is a 1×1 lossless WebP (the standard library has no encoder).
const TinyWebP = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

func picture(w, h int, alpha uint8) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(y), B: 120, A: alpha})
		}
	}
	return img
}

func encodeJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, picture(w, h, 255), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(t testing.TB, w, h int, alpha uint8) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, picture(w, h, alpha)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestInspectGoesByContent(t *testing.T) {
	webp, err := base64.StdEncoding.DecodeString(TinyWebP)
	if err != nil {
		t.Fatal(err)
	}
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x00;")
	for _, c := range []struct {
		name   string
		data   []byte
		format string
		err    error
	}{
		{"jpeg", encodeJPEG(t, 40, 30), "jpeg", nil},
		{"png", encodePNG(t, 40, 30, 255), "png", nil},
		{"webp", webp, "webp", nil},
		{"text", []byte("just some text, named photo.jpg"), "", photos.ErrNotAPicture},
		{"empty", nil, "", photos.ErrNotAPicture},
		{"a PNG header cut short", encodePNG(t, 40, 30, 255)[:20], "", photos.ErrNotAPicture},
		{"gif (not taken)", gif, "", photos.ErrNotAPicture},
		{"too large", make([]byte, photos.MaxBytes+1), "", photos.ErrTooLarge},
	} {
		u, err := photos.Inspect(c.data)
		if !errors.Is(err, c.err) || u.Format != c.format {
			t.Errorf("%s: format %q, err %v; want %q, %v", c.name, u.Format, err, c.format, c.err)
		}
	}
	// A header claiming a huge picture is refused before it is decoded.
	huge := encodePNG(t, 1, 1, 255)
	copy(huge[16:24], []byte{0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20}) // IHDR: 20000 × 20000
	binary.BigEndian.PutUint32(huge[29:33], crc32.ChecksumIEEE(huge[12:29]))
	if _, err := photos.Inspect(huge); !errors.Is(err, photos.ErrTooManyPixels) {
		t.Errorf("a 20000×20000 header: %v, want ErrTooManyPixels", err)
	}
}

func TestProcessMakesCopiesNeverUpscaled(t *testing.T) {
	for _, c := range []struct {
		name   string
		data   []byte
		format string
		widths []int
	}{
		{"a wide JPEG", encodeJPEG(t, 1500, 1000), "jpeg", []int{320, 640, 1280}},
		{"a PNG 700 wide, opaque", encodePNG(t, 700, 350, 255), "jpeg", []int{320, 640}},
		{"a small PNG with transparency", encodePNG(t, 200, 100, 128), "png", []int{200}},
	} {
		u, err := photos.Inspect(c.data)
		if err != nil {
			t.Fatal(c.name, err)
		}
		photo, copies, err := photos.Process(u)
		if err != nil {
			t.Fatal(c.name, err)
		}
		if photo.Format != c.format || len(photo.Key) != 32 {
			t.Errorf("%s: %+v, want format %s and a 32-digit key", c.name, photo, c.format)
		}
		if got := photo.Widths(); !equal(got, c.widths) {
			t.Errorf("%s: widths %v, want %v", c.name, got, c.widths)
		}
		if len(copies) != len(c.widths)+1 || !bytes.Equal(copies[0].Data, c.data) || !strings.Contains(copies[0].Name, "/original.") {
			t.Fatalf("%s: %d copies, the first %s; want the original and %d", c.name, len(copies), copies[0].Name, len(c.widths))
		}
		for i, w := range c.widths {
			cp := copies[i+1]
			cfg, format, err := image.DecodeConfig(bytes.NewReader(cp.Data))
			if err != nil || format != c.format || cfg.Width != w || cp.Name != photos.CopyName(photo.Key, w, c.format) {
				t.Errorf("%s: copy %s is %s %d×%d (%v), want %s %d wide", c.name, cp.Name, format, cfg.Width, cfg.Height, err, c.format, w)
			}
			if wantH := photo.Height * w / photo.Width; cfg.Height < wantH-1 || cfg.Height > wantH+1 {
				t.Errorf("%s: copy %d wide is %d high, want about %d", c.name, w, cfg.Height, wantH)
			}
		}
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// shelfJourney puts a file and reads it back, and a missing one is
// ErrNotFound.
func shelfJourney(t *testing.T, shelf photos.Shelf) {
	ctx := context.Background()
	data := []byte("\xff\xd8 pretend jpeg")
	if err := shelf.Put(ctx, "photos/abc/640.jpg", "image/jpeg", data); err != nil {
		t.Fatal(err)
	}
	r, size, err := shelf.Open(ctx, "photos/abc/640.jpg")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil || !bytes.Equal(got, data) || size != int64(len(data)) {
		t.Fatalf("read back %q (size %d, %v), want %q", got, size, err, data)
	}
	if _, _, err := shelf.Open(ctx, "photos/abc/320.jpg"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a missing file: %v, want ErrNotFound", err)
	}
}

func TestDiskShelf(t *testing.T) {
	dir := t.TempDir()
	shelfJourney(t, shelf.Disk{Dir: dir, What: photos.What})
	// Nothing half-written is left beside the files.
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(info.Name(), ".upload-") {
			t.Errorf("a temporary file was left: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := (shelf.Disk{Dir: dir, What: photos.What}).Open(context.Background(), "../etc/passwd"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a name outside the shelf: %v, want ErrNotFound", err)
	}
}

func TestBucketShelf(t *testing.T) {
	fake, client := shelftest.Start(t)
	shelfJourney(t, shelf.Bucket{Client: client, Name: "shop-media", What: photos.What})
	if got := fake.Types()["/shop-media/photos/abc/640.jpg"]; got != "image/jpeg" {
		t.Fatalf("the object's Content-Type is %q, want image/jpeg", got)
	}
}

func TestDrawnPicturesAreDeterministicSVG(t *testing.T) {
	a := photos.DrawnSeed("coffee", "Light Roast")
	if a != photos.DrawnSeed("coffee", "Light Roast") || a == photos.DrawnSeed("coffee", "Dark Roast") || !photos.ValidSeed(a) {
		t.Fatalf("seed %q is not a stable 16-hex-digit hash of the name", a)
	}
	svg1, err := photos.Draw("coffee", a)
	if err != nil {
		t.Fatal(err)
	}
	svg2, _ := photos.Draw("coffee", a)
	other, _ := photos.Draw("books", a)
	if !bytes.Equal(svg1, svg2) || bytes.Equal(svg1, other) {
		t.Fatal("the same seed and category must draw the same picture, another category another")
	}
	if !bytes.HasPrefix(svg1, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480"`)) || !bytes.HasSuffix(svg1, []byte("</svg>")) {
		t.Fatalf("not an SVG of 640×480: %.120s", svg1)
	}
	if _, err := photos.Draw("coffee", "not-hex"); err == nil {
		t.Fatal("a bad seed drew a picture")
	}
}

// FuzzInspect: whatever the bytes, Inspect answers without panicking, and
// what it takes decodes within its limits.
func FuzzInspect(f *testing.F) {
	f.Add(encodeJPEG(f, 8, 8))
	f.Add(encodePNG(f, 8, 8, 100))
	webp, _ := base64.StdEncoding.DecodeString(TinyWebP)
	f.Add(webp)
	f.Add([]byte("hello"))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := photos.Inspect(data)
		if err != nil {
			return
		}
		if u.Width <= 0 || u.Height <= 0 || int64(u.Width)*int64(u.Height) > photos.MaxPixels {
			t.Fatalf("took a %d×%d picture", u.Width, u.Height)
		}
	})
}
