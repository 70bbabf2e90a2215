// Package pdfdoc renders the shop's documents as PDF: an order's invoice,
// a subscription's receipt and a refund's credit note, in the customer's
// language, with the seller's details, the customer's, each line with its
// VAT, the totals and the VAT per rate.
//
// It uses codeberg.org/go-pdf/fpdf (pure Go, no cgo, the maintained home
// of gofpdf) with NanumGothic, a TrueType font with Hangul and Latin
// (OFL, fonts/OFL.txt), embedded in the binary, so Korean documents show
// their text on a machine with no fonts installed. fpdf embeds only the
// glyphs a document uses, so a PDF is some tens of kilobytes.
//
// Documents are rendered when they are needed (a download, a mail being
// sent), never stored.
package pdfdoc

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/goregular"

	"shop/store"
	"shop/views"
	"shop/views/lang"
)

//go:embed fonts/NanumGothic.ttf
var nanumGothic []byte

const family = "nanum"

// Options are how a document is written.
type Options struct {
	// Uncompressed leaves the page streams plain, so a test can read the
	// text in the bytes.
	Uncompressed bool
	// Now is the document's creation time in its metadata (zero: now).
	Now time.Time
}

// Common is what every document carries: its language, the shop's zone
// (dates are its days) and the seller.
type Common struct {
	Lang   lang.Lang
	Loc    *time.Location
	Seller store.Seller
	Options
}

// doc is one document being written.
type doc struct {
	pdf *fpdf.Fpdf
	ctx context.Context
	c   Common
	f   *fonts
}

// Page geometry, in millimetres (A4).
const (
	margin    = 18.0
	pageWidth = 210.0
	inner     = pageWidth - 2*margin
	lineH     = 5.0
)

func newDoc(ctx context.Context, c Common, title string) (*doc, error) {
	f, err := parsed()
	if err != nil {
		return nil, fmt.Errorf("pdf fonts: %w", err)
	}
	if c.Loc == nil {
		c.Loc = time.UTC
	}
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCompression(!c.Uncompressed)
	created := c.Now
	if created.IsZero() {
		created = time.Now()
	}
	pdf.SetCreationDate(created)
	pdf.SetModificationDate(created)
	pdf.AddUTF8FontFromBytes(family, "", nanumGothic)
	pdf.AddUTF8FontFromBytes(fallback, "", goregular.TTF)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(true, margin)
	pdf.SetTitle(title, true)
	pdf.SetAuthor(c.Seller.LegalName, true)
	pdf.SetCreator(views.ShopName, true)
	d := &doc{pdf: pdf, ctx: lang.With(ctx, c.Lang), c: c, f: f}
	pdf.SetFooterFunc(d.footer)
	pdf.AddPage()
	return d, nil
}

// t is a message in the document's language.
func (d *doc) t(id string, args ...any) string { return lang.In(d.c.Lang, id, args...) }

func (d *doc) money(m store.Money) string { return lang.MoneyIn(d.c.Lang, m) }

func (d *doc) date(t time.Time) string { return lang.DateIn(d.c.Lang, t.In(d.c.Loc)) }

// bytes finishes the document.
func (d *doc) bytes() ([]byte, error) {
	var b bytes.Buffer
	if err := d.pdf.Output(&b); err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	return b.Bytes(), nil
}

// heading is the document's title and, under it, facts ("Date: …").
func (d *doc) heading(title string, facts ...string) {
	d.pdf.SetFont(family, "", 18)
	d.cell(inner, 9, title, "", 1, "L", false, 0, "")
	d.pdf.SetFont(family, "", 9.5)
	for _, f := range facts {
		if f != "" {
			d.cell(inner, lineH, f, "", 1, "L", false, 0, "")
		}
	}
	d.pdf.Ln(4)
}

// parties is the seller on the left, the customer on the right.
func (d *doc) parties(billedName string, billedLines []string) {
	half := inner/2 - 4
	y := d.pdf.GetY()
	left := []string{d.t("doc.seller")}
	if s := d.c.Seller; s.Known() {
		left = append(left, s.LegalName)
		left = append(left, s.AddressLines()...)
		left = append(left, d.t("doc.vat_number", "Number", s.VATNumber))
	} else {
		left = append(left, views.ShopName)
	}
	right := append([]string{d.t("doc.billed_to")}, billedName)
	right = append(right, billedLines...)
	d.block(margin, y, half, left)
	endLeft := d.pdf.GetY()
	d.block(margin+inner/2+4, y, half, right)
	d.pdf.SetY(max(endLeft, d.pdf.GetY()) + 6)
}

// block writes lines at x, y, the first small and grey (its label).
func (d *doc) block(x, y, w float64, lines []string) {
	d.pdf.SetXY(x, y)
	for i, l := range lines {
		if l == "" {
			continue
		}
		if i == 0 {
			d.pdf.SetFont(family, "", 8)
			d.pdf.SetTextColor(110, 110, 110)
		} else {
			d.pdf.SetFont(family, "", 10)
			d.pdf.SetTextColor(0, 0, 0)
		}
		d.pdf.SetX(x)
		d.cell(w, lineH, d.fit(l, w), "", 1, "L", false, 0, "")
	}
	d.pdf.SetTextColor(0, 0, 0)
}

// fit cuts s to what fits in w at the current font, with an ellipsis.
func (d *doc) fit(s string, w float64) string {
	if d.width(s) <= w-1 {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && d.width(string(r)+"…") > w-1 {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// footer is the seller's name and VAT number and the page's number, on
// every page.
func (d *doc) footer() {
	d.pdf.SetY(-margin + 4)
	d.pdf.SetFont(family, "", 7.5)
	d.pdf.SetTextColor(110, 110, 110)
	left := views.ShopName
	if s := d.c.Seller; s.Known() {
		left = s.LegalName + " · " + d.t("doc.vat_number", "Number", s.VATNumber)
	}
	d.cell(inner*0.75, 4, left, "", 0, "L", false, 0, "")
	d.cell(inner*0.25, 4, d.t("doc.page", "Page", d.pdf.PageNo()), "", 0, "R", false, 0, "")
	d.pdf.SetTextColor(0, 0, 0)
}

// width is how wide s prints at the current size, each run in its font.
func (d *doc) width(s string) float64 {
	pt, _ := d.pdf.GetFontSize()
	w := 0.0
	for _, r := range d.f.runs(s) {
		d.pdf.SetFont(r.family, "", pt)
		w += d.pdf.GetStringWidth(r.text)
	}
	d.pdf.SetFont(family, "", pt)
	return w
}

// cell is fpdf's CellFormat (no fill, no link) for text of one or more
// fonts: a border and the text aligned in w, each run in its font.
func (d *doc) cell(w, h float64, s, border string, ln int, align string, _ bool, _ int, _ string) {
	runs := d.f.runs(s)
	if len(runs) <= 1 && (len(runs) == 0 || runs[0].family == family) {
		d.pdf.CellFormat(w, h, s, border, ln, align, false, 0, "")
		return
	}
	x0, y0 := d.pdf.GetXY()
	d.pdf.CellFormat(w, h, "", border, 0, "", false, 0, "")
	pt, unit := d.pdf.GetFontSize()
	cm := d.pdf.GetCellMargin()
	x := x0 + cm
	if align == "R" {
		x = x0 + w - cm - d.width(s)
	}
	base := y0 + h/2 + 0.3*unit
	for _, r := range runs {
		d.pdf.SetFont(r.family, "", pt)
		d.pdf.Text(x, base, r.text)
		x += d.pdf.GetStringWidth(r.text)
	}
	d.pdf.SetFont(family, "", pt)
	if ln == 1 {
		d.pdf.SetXY(d.pdfLeft(), y0+h)
	} else {
		d.pdf.SetXY(x0+w, y0)
	}
}

func (d *doc) pdfLeft() float64 {
	l, _, _, _ := d.pdf.GetMargins()
	return l
}

// docAddress is a postal address as documents print it.
func docAddress(a store.Address) []string { return views.DocAddressLines(a) }
