package handlers

import (
	"bufio"
	"context"
	"encoding/csv"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
)

// csvPage is one page of an export: its records and the cursor after it
// ("" on the last page).
type csvPage struct {
	records [][]string
	next    string
}

// streamCSV answers a CSV file read a page of the store at a time. The
// first page is read before the answer starts, so a failing store is still
// an error page; a failure later ends the file with a line saying it is
// incomplete. The stream outlives the handler, so it reads with a context
// of its own.
func streamCSV(c *fiber.Ctx, log *slog.Logger, filename string, header []string, what string,
	read func(ctx context.Context, cursor string) (csvPage, error)) error {
	first, err := read(c.UserContext(), "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), csvTimeout)
	requestID := page.RequestID(c)
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	c.Status(fiber.StatusOK)
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		defer cancel()
		w := csv.NewWriter(bw)
		_ = w.Write(header)
		p := first
		for {
			for _, r := range p.records {
				_ = w.Write(r)
			}
			w.Flush()
			if w.Error() != nil || bw.Flush() != nil {
				return // the client went away
			}
			if p.next == "" {
				return
			}
			var err error
			if p, err = read(ctx, p.next); err != nil {
				log.Error(what+" export cut short", "request_id", requestID, "err", err)
				_ = w.Write([]string{"# INCOMPLETE: the export stopped early; download it again (request " + requestID + ")"})
				w.Flush()
				_ = bw.Flush()
				return
			}
		}
	})
	return nil
}
