package pdfdoc

import "shop/store"

// column is one column of a table: its share of the width and alignment.
type column struct {
	title string
	share float64 // of the inner width
	align string  // "L" or "R"
}

// table writes a header row and rows, a thin rule under the header.
func (d *doc) table(cols []column, rows [][]string) {
	d.pdf.SetFont(family, "", 8)
	d.pdf.SetTextColor(90, 90, 90)
	for _, c := range cols {
		d.cell(inner*c.share, 6, d.fit(c.title, inner*c.share), "B", 0, c.align, false, 0, "")
	}
	d.pdf.Ln(-1)
	d.pdf.SetTextColor(0, 0, 0)
	d.pdf.SetFont(family, "", 9.5)
	for _, r := range rows {
		for i, c := range cols {
			d.cell(inner*c.share, 6, d.fit(r[i], inner*c.share), "", 0, c.align, false, 0, "")
		}
		d.pdf.Ln(-1)
	}
	d.pdf.Ln(2)
}

// totals are label and amount rows, right-aligned; strong rows are
// larger.
type total struct {
	label, amount string
	strong        bool
}

func (d *doc) totals(rows []total) {
	labelW, amountW := inner*0.45, inner*0.2
	for _, r := range rows {
		size := 9.5
		if r.strong {
			size = 11.5
		}
		d.pdf.SetFont(family, "", size)
		d.pdf.SetX(margin + inner - labelW - amountW)
		border := ""
		if r.strong {
			border = "T"
		}
		d.cell(labelW, 6.5, d.fit(r.label, labelW), border, 0, "R", false, 0, "")
		d.cell(amountW, 6.5, r.amount, border, 1, "R", false, 0, "")
	}
	d.pdf.Ln(3)
}

// vat is the VAT per rate: the net, the tax and the gross.
func (d *doc) vat(lines []store.VATLine) {
	if len(lines) == 0 {
		return
	}
	d.subheading(d.t("shop.vat.caption"))
	rows := make([][]string, 0, len(lines))
	for _, l := range lines {
		rows = append(rows, []string{l.Rate.String(), d.money(l.Net), d.money(l.Tax), d.money(l.Gross)})
	}
	d.table([]column{
		{d.t("shop.vat.rate"), 0.25, "L"}, {d.t("shop.vat.net"), 0.25, "R"},
		{d.t("shop.vat.tax"), 0.25, "R"}, {d.t("shop.vat.gross"), 0.25, "R"},
	}, rows)
}

func (d *doc) subheading(s string) {
	d.pdf.SetFont(family, "", 11)
	d.cell(inner, 7, s, "", 1, "L", false, 0, "")
}

// lineColumns are the columns of a document's lines.
func (d *doc) lineColumns() []column {
	return []column{
		{d.t("doc.col.item"), 0.38, "L"}, {d.t("doc.col.qty"), 0.08, "R"}, {d.t("doc.col.price"), 0.15, "R"},
		{d.t("shop.vat.rate"), 0.1, "R"}, {d.t("shop.vat.tax"), 0.13, "R"}, {d.t("doc.col.amount"), 0.16, "R"},
	}
}
