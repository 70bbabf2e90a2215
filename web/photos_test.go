package web_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"shop/store/demo"
	"shop/store/photos"
)

// tinyWebP is a 1×1 lossless WebP (Go has no WebP encoder).
const tinyWebP = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

func testPicture(w, h int, alpha uint8) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x * 7), G: uint8(y * 3), B: 90, A: alpha})
		}
	}
	return img
}

func testJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testPicture(w, h, 255), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testPNG(t *testing.T, w, h int, alpha uint8) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testPicture(w, h, alpha)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// uploadPhoto sends the photo form as a browser does: multipart, with the
// page's CSRF token, the file's name and declared type as given.
func (b *browser) uploadPhoto(productID, filename, contentType string, data []byte) page {
	b.t.Helper()
	return b.uploadPhotoTo("/admin/products/"+productID+"/photo", filename, contentType, data)
}

// uploadPhotoTo sends a photo form to path (a product's, a drop's).
func (b *browser) uploadPhotoTo(path, filename, contentType string, data []byte) page {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if err := mw.WriteField("_csrf", b.csrf); err != nil {
		b.t.Fatal(err)
	}
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="photo"; filename="` + filename + `"`}
	h["Content-Type"] = []string{contentType}
	fw, err := mw.CreatePart(h)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		b.t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		b.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, b.base+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

// picture is the product page's main picture.
func productPicture(t *testing.T, b *browser, id string) *goquerySelection {
	t.Helper()
	p := b.get("/products/" + id)
	wantStatus(t, "product page", p, http.StatusOK)
	img := p.testid("product-picture")
	if img.Length() != 1 {
		t.Fatalf("the product page has %d pictures, want 1", img.Length())
	}
	return img
}

// wantMedia fetches a picture URL and checks it is served for a year under
// its versioned name; it returns the body.
func wantMedia(t *testing.T, b *browser, u, contentType string) []byte {
	t.Helper()
	resp, err := b.http.Get(b.base + u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != contentType ||
		resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("ETag") == "" {
		t.Fatalf("%s: %d %q %q etag %q, want 200 %s cached for a year with an ETag", u, resp.StatusCode,
			resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"), contentType)
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Fatalf("%s sets a cookie: a picture has no session", u)
	}
	// The browser asks again with its ETag: 304, nothing sent.
	req, _ := http.NewRequest(http.MethodGet, b.base+u, nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	again, err := b.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Fatalf("%s with its ETag: %d, want 304", u, again.StatusCode)
	}
	return body
}

func TestStaffUploadProductPhotos(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	visitor := s.browser(t)

	// Without a photo the shop's drawn picture stands in, 640×480.
	img := productPicture(t, visitor, "cf-light")
	src, _ := img.Attr("src")
	if !strings.HasPrefix(src, "/media/drawn/coffee/") || img.AttrOr("width", "") != "640" || img.AttrOr("height", "") != "480" {
		t.Fatalf("drawn picture: src %s, %s×%s", src, img.AttrOr("width", ""), img.AttrOr("height", ""))
	}
	if svg := wantMedia(t, visitor, src, "image/svg+xml"); !bytes.HasPrefix(svg, []byte("<svg")) {
		t.Fatalf("the drawn picture is not an SVG: %.80s", svg)
	}

	// Refusals come back on the product's page with a reason and a 4xx,
	// and leave the product as it was.
	b.get("/admin/products/cf-light")
	for _, c := range []struct {
		what, filename, contentType string
		data                        []byte
		status                      int
	}{
		{"a text file named like a photo", "beans.jpg", "image/jpeg", []byte("these are not the beans you are looking for"), http.StatusUnsupportedMediaType},
		{"a PNG cut short", "beans.png", "image/png", testPNG(t, 300, 200, 255)[:400], http.StatusUnsupportedMediaType},
		{"no file", "", "application/octet-stream", nil, http.StatusUnprocessableEntity},
		{"10 MB and a byte", "huge.jpg", "image/jpeg", append(testJPEG(t, 50, 50), make([]byte, photos.MaxBytes+1-len(testJPEG(t, 50, 50)))...), http.StatusRequestEntityTooLarge},
	} {
		p := b.uploadPhoto("cf-light", c.filename, c.contentType, c.data)
		wantStatus(t, c.what, p, c.status)
		if msg := p.testid("error-photo").Text(); msg == "" {
			t.Errorf("%s: no message at the photo field", c.what)
		}
	}
	if src := productPicture(t, visitor, "cf-light").AttrOr("src", ""); !strings.HasPrefix(src, "/media/drawn/") {
		t.Fatalf("after refused uploads the product shows %s", src)
	}

	// A JPEG named and declared as anything: taken by its content, resized
	// to 320, 640 and 1280 (the original is 1300 wide; short, so that -race
	// resizes it in time).
	const W, H = 1300, 260
	p := b.uploadPhoto("cf-light", "photo.txt", "text/plain", testJPEG(t, W, H))
	wantStatus(t, "a JPEG", p, http.StatusSeeOther)
	img = productPicture(t, visitor, "cf-light")
	if img.AttrOr("width", "") != strconv.Itoa(W) || img.AttrOr("height", "") != strconv.Itoa(H) {
		t.Fatalf("the photo is drawn %s×%s, want its own %d×%d", img.AttrOr("width", ""), img.AttrOr("height", ""), W, H)
	}
	if _, lazy := img.Attr("loading"); lazy || img.AttrOr("fetchpriority", "") != "high" || img.AttrOr("alt", "") == "" || img.AttrOr("sizes", "") == "" {
		t.Fatal("the product page's picture is its largest paint: not lazy, fetched first, with an alt and sizes")
	}
	set := strings.Split(img.AttrOr("srcset", ""), ", ")
	if len(set) != 3 {
		t.Fatalf("srcset %q, want three widths", img.AttrOr("srcset", ""))
	}
	for i, w := range []int{320, 640, 1280} {
		u, desc, _ := strings.Cut(set[i], " ")
		if desc != strconv.Itoa(w)+"w" || !strings.HasSuffix(u, "/"+strconv.Itoa(w)+".jpg") {
			t.Fatalf("srcset entry %q, want the %d-wide JPEG", set[i], w)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(wantMedia(t, visitor, u, "image/jpeg")))
		wantH := (w*H + W/2) / W // rounded
		if err != nil || format != "jpeg" || cfg.Width != w || cfg.Height != wantH {
			t.Fatalf("%s is %s %d×%d (%v), want a JPEG %d×%d", u, format, cfg.Width, cfg.Height, err, w, wantH)
		}
	}

	// Editing the product afterwards keeps its photo.
	b.get("/admin/products/cf-light")
	edit := b.post("/admin/products/cf-light", url.Values{"name": {"Archipelago Light Roast 500 g"}, "category": {"coffee"}, "price": {"13.90"}})
	wantStatus(t, "edit", edit, http.StatusSeeOther)
	if src := productPicture(t, visitor, "cf-light").AttrOr("src", ""); !strings.Contains(src, "/media/photos/") {
		t.Fatalf("after an edit the product shows %s, not its photo", src)
	}

	// A PNG with transparency stays PNG; one narrower than 640 is never
	// upscaled.
	b.get("/admin/products/cf-decaf")
	wantStatus(t, "a PNG", b.uploadPhoto("cf-decaf", "logo.png", "image/png", testPNG(t, 500, 400, 128)), http.StatusSeeOther)
	img = productPicture(t, visitor, "cf-decaf")
	u, desc, _ := strings.Cut(img.AttrOr("srcset", ""), " ")
	if desc != "320w" || !strings.HasSuffix(u, "/320.png") || img.AttrOr("width", "") != "500" {
		t.Fatalf("a 500-wide PNG: srcset %q, width %s", img.AttrOr("srcset", ""), img.AttrOr("width", ""))
	}
	wantMedia(t, visitor, u, "image/png")

	// A WebP is taken too (and a picture narrower than 320 gets one copy
	// at its own width).
	webp, _ := base64.StdEncoding.DecodeString(tinyWebP)
	b.get("/admin/products/cf-espresso")
	wantStatus(t, "a WebP", b.uploadPhoto("cf-espresso", "bean.webp", "image/webp", webp), http.StatusSeeOther)
	if set := productPicture(t, visitor, "cf-espresso").AttrOr("srcset", ""); !strings.HasSuffix(set, " 1w") || strings.Contains(set, ",") {
		t.Fatalf("a 1×1 WebP: srcset %q", set)
	}

	// Unknown pictures are 404s.
	for _, u := range []string{
		strings.Replace(u, "/320.png", "/640.png", 1), // never made
		"/media/photos/00000000000000000000000000000000/320.jpg",
		"/media/photos/nothex/320.jpg",
		"/media/photos/00000000000000000000000000000000/original.png",
		"/media/drawn/coffee/nothex.svg",
		"/media/drawn/coffee/0123456789abcdef.png",
		"/media/elsewhere",
	} {
		if p := visitor.get(u); p.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", u, p.status)
		}
	}
}

func TestStorefrontPicturesKeepTheirSpace(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	p := b.get("/")
	wantStatus(t, "catalogue", p, http.StatusOK)
	cards := p.testid("product-card")
	if cards.Length() == 0 {
		t.Fatal("no product cards")
	}
	cards.Each(func(i int, card *goquerySelection) {
		img := card.Find("img")
		if img.Length() != 1 {
			t.Fatalf("card %d has %d images", i, img.Length())
		}
		_, hasAlt := img.Attr("alt")
		if img.AttrOr("loading", "") != "lazy" || img.AttrOr("width", "") == "" || img.AttrOr("height", "") == "" || !hasAlt {
			t.Fatalf("card %d: %s; want loading=lazy, width, height and alt", i, outerHTML(img))
		}
		if !strings.Contains(img.AttrOr("class", ""), "cat-") {
			t.Fatalf("card %d: no placeholder colours while it loads", i)
		}
	})
	// Each card's picture is its own, drawn from its name.
	first, _ := cards.Eq(0).Find("img").Attr("src")
	second, _ := cards.Eq(1).Find("img").Attr("src")
	if first == second {
		t.Fatal("two products share a drawn picture")
	}
	wantMedia(t, b, first, "image/svg+xml")
}

func outerHTML(s *goquerySelection) string {
	h, _ := s.Parent().Html()
	return trim(h)
}

// rawPost sends a POST's head and the first 16 KB of its body (the server
// reads 8 KB, or a byte more, with the head), no more, and reads the answer: a server that
// waited for the whole body would not answer within the deadline.
func rawPost(t *testing.T, base, path string, headers ...string) *http.Response {
	t.Helper()
	resp, _ := rawRequest(t, base, http.MethodPost, path, append([]string{"Content-Type: application/x-www-form-urlencoded"}, headers...)...)
	return resp
}

// rawRequest is rawPost for any method, and keeps the answer's body. A
// client sending a whole over-limit body may still be writing when the
// server answers and closes, and read a reset instead of the answer.
func rawRequest(t *testing.T, base, method, path string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	head := method + " " + path + " HTTP/1.1\r\nHost: shop\r\n" + strings.Join(headers, "\r\n") + "\r\n\r\n"
	if !strings.Contains(head, "chunked") {
		head += strings.Repeat("a", 16<<10)
	}
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s (%v): no answer before the body: %v", method, path, headers, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	_ = resp.Body.Close()
	return resp, body
}

func TestBodiesAreLimitedPerRouteBeforeTheyAreRead(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	photoLimit := photos.MaxBytes + 64<<10
	for _, c := range []struct {
		path   string
		header string
		status int
	}{
		// Other routes keep their 1 MB, though the app's limit is above 10 MB.
		{"/cart/items", "Content-Length: " + strconv.Itoa(1<<20+1), http.StatusRequestEntityTooLarge},
		{"/login", "Content-Length: 5000000", http.StatusRequestEntityTooLarge},
		{"/admin/products/cf-light", "Content-Length: 5000000", http.StatusRequestEntityTooLarge},
		// A body without a length is refused before it is read, whatever
		// its route.
		{"/cart/items", "Transfer-Encoding: chunked", http.StatusLengthRequired},
		{"/admin/products/cf-light/photo", "Transfer-Encoding: chunked", http.StatusLengthRequired},
		// The photo route takes 10 MB and the form around it, not a byte more.
		{"/admin/products/cf-light/photo", "Content-Length: " + strconv.Itoa(photoLimit+1), http.StatusRequestEntityTooLarge},
	} {
		resp := rawPost(t, s.base, c.path, c.header)
		if resp.StatusCode != c.status || !resp.Close {
			t.Errorf("POST %s with %s: %d (close %v), want %d and the connection closed", c.path, c.header, resp.StatusCode, resp.Close, c.status)
		}
	}

	// A body within its limit that the handler never reads (an htmx
	// sign-out sends its token in a header) is read to its end: the next
	// request on the same connection is answered as itself.
	b := s.browser(t)
	b.get("/login")
	client := &http.Client{Jar: b.http.Jar, Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodPost, s.base+"/logout", strings.NewReader("pad="+strings.Repeat("x", 200<<10)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-CSRF-Token", b.csrf)
	req.Header.Set("HX-Request", "true")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode >= 400 {
		t.Fatalf("sign-out with a 200 KB body: %d", resp.StatusCode)
	}
	reused := false
	req, _ = http.NewRequest(http.MethodGet, s.base+"/login", nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}))
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if !reused || resp.StatusCode != http.StatusOK {
		t.Fatalf("the next request on the connection: %d (reused %v), want 200 on the same connection", resp.StatusCode, reused)
	}
}

// A photo upload is 10 MB at most, so only staff may make the shop read
// one: anyone else is refused on the head of their request, before the
// CSRF check reads the form. Each request here sends its head and the
// first 16 KB of a 9 MB upload, then nothing: a shop that read on would
// not answer before the deadline.
func TestPhotoUploadRefusesNonStaffBeforeReadingTheBody(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	customer.get("/")
	visitor := s.browser(t)
	visitor.get("/login") // a visit with a session and a token
	for _, c := range []struct {
		who    string
		b      *browser
		status int
	}{
		{"a customer", customer, http.StatusForbidden},
		{"a visitor", visitor, http.StatusForbidden},
	} {
		start := time.Now()
		resp := startUpload(t, s.base, "/admin/products/cf-light/photo", c.b, 9<<20)
		if resp.StatusCode != c.status || !resp.Close {
			t.Errorf("%s's 9 MB upload: %d (close %v), want %d on its head and the connection closed", c.who, resp.StatusCode, resp.Close, c.status)
		}
		t.Logf("%s refused after %v", c.who, time.Since(start))
	}

	// Staff get through to the form (a photo cut short at the end).
	staff := s.staff(t)
	staff.get("/admin/products/cf-light")
	p := staff.uploadPhoto("cf-light", "beans.png", "image/png", testPNG(t, 300, 200, 255)[:400])
	wantStatus(t, "staff's damaged photo", p, http.StatusUnsupportedMediaType)
}

// startUpload sends a photo upload's head (with b's cookies) declaring a
// body of size bytes, and the body's first 16 KB (the form's token, then
// the file), and reads the answer without sending the rest.
func startUpload(t *testing.T, base, path string, b *browser, size int) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	var cookies []string
	for _, c := range b.cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	const boundary = "shopboundary"
	body := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + b.csrf + "\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"big.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
	body += strings.Repeat("a", 16<<10-len(body))
	head := "POST " + path + " HTTP/1.1\r\nHost: shop\r\nContent-Type: multipart/form-data; boundary=" + boundary +
		"\r\nContent-Length: " + strconv.Itoa(size) + "\r\nCookie: " + strings.Join(cookies, "; ") + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+body); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("POST %s: no answer before the body: %v", path, err)
	}
	_ = resp.Body.Close()
	return resp
}
