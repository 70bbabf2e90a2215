package page

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

func TestFieldReadsTheBodyNeverTheQuery(t *testing.T) {
	// As the shop's app reads bodies: streamed, multipart parsed on demand.
	app := fiber.New(fiber.Config{StreamRequestBody: true, DisablePreParseMultipartForm: true})
	app.Post("/x", func(c *fiber.Ctx) error {
		return c.SendString(Field(c, "quantity") + "|" + Field(c, "missing"))
	})
	var multi bytes.Buffer
	mw := multipart.NewWriter(&multi)
	if err := mw.WriteField("quantity", "1"); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, contentType, body, want string
	}{
		{"urlencoded", "application/x-www-form-urlencoded", "quantity=1", "1|"},
		{"multipart", mw.FormDataContentType(), multi.String(), "1|"},
		{"urlencoded without the field", "application/x-www-form-urlencoded", "other=1", "|"},
		{"no body", "application/x-www-form-urlencoded", "", "|"},
	} {
		req := httptest.NewRequest(fiber.MethodPost, "/x?quantity=99&missing=yes", strings.NewReader(c.body))
		req.Header.Set(fiber.HeaderContentType, c.contentType)
		resp, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%s: %q, want %q (the body's fields only)", c.name, got, c.want)
		}
	}
}
