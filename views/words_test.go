package views

import (
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// A sentence with elements in it (tMarked, tnMarked, MarkedIn) is the
// catalogue's message in each language's word order, its text and plain
// values escaped and its elements put in where the language puts them.
func TestSentenceWithElements(t *testing.T) {
	t.Parallel()
	en := lang.With(context.Background(), lang.English)
	ko := lang.With(context.Background(), lang.Korean)
	id := lang.With(context.Background(), lang.Indonesian)
	when := Mark("strong", "", "15 Mar")
	browse := Link("/products?a=1&b=2", "browse", `"all" <things>`)
	evil := `<b>&"Q'`
	for _, c := range []struct {
		name string
		got  templ.Component
		want string
	}{
		{"element at the end", tMarked(en, "shop.shipment.shipped", "When", when),
			`Shipped <strong>15 Mar</strong>`},
		{"element at the start", tMarked(ko, "shop.shipment.shipped", "When", when),
			`<strong>15 Mar</strong> 발송`},
		{"Indonesian", tMarked(id, "shop.shipment.shipped", "When", when),
			`Dikirim <strong>15 Mar</strong>`},
		{"element in the middle, value escaped", tMarked(en, "search.none", "Link", browse, "Query", evil),
			`Nothing matches &#34;&lt;b&gt;&amp;&#34;Q&#39;&#34;. Try fewer words, or <a href="/products?a=1&amp;b=2" data-testid="browse">&#34;all&#34; &lt;things&gt;</a>.`},
		{"element last of all", tMarked(ko, "search.none", "Link", browse, "Query", "x"),
			`&#34;x&#34;와(과) 일치하는 상품이 없습니다. 검색어를 줄이거나 <a href="/products?a=1&amp;b=2" data-testid="browse">&#34;all&#34; &lt;things&gt;</a>`},
		{"plain values only", tMarked(en, "admin.orders.placed_by", "When", "today & <now>", "Customer", "Ada"),
			`Placed today &amp; &lt;now&gt; by Ada`},
		{"an element the message does not name is left out", tMarked(en, "admin.orders.order", "Order", "o1", "Other", when),
			`Order o1`},
		{"a value posing as a marker stays text", tMarked(en, "search.none", "Link", browse, "Query", markOpen+"0"+markClose),
			`Nothing matches &#34;0&#34;. Try fewer words, or <a href="/products?a=1&amp;b=2" data-testid="browse">&#34;all&#34; &lt;things&gt;</a>.`},
		{"count", tnMarked(en, "drops.live.tickets", 1, "Quantity", Mark("span", "", "1")),
			`<span>1</span> ticket, one per customer, first come first served.`},
		{"count, Korean", tnMarked(ko, "drops.live.tickets", 3, "Quantity", Mark("span", "", "3")),
			`응모권 <span>3</span>장, 1인당 1장, 선착순입니다.`},
		{"mail, Korean", MarkedIn(lang.Korean, "mail.failed.retry_html", "Date", Mark("strong", "", "3월 18일"), "Change", Link("https://x.example/?a=1&b=2", "", "카드 변경")),
			`<strong>3월 18일</strong>에 다시 결제를 시도합니다. <a href="https://x.example/?a=1&amp;b=2">카드 변경</a> 바로 다시 시도합니다.`},
		{"mail, Indonesian", MarkedIn(lang.Indonesian, "mail.failed.retry_html", "Date", Mark("strong", "", "18 Mar"), "Change", Link("/c", "", "Ganti <kartu>")),
			`Kami akan mencoba lagi pada <strong>18 Mar</strong>. <a href="/c">Ganti &lt;kartu&gt;</a> dan kami langsung mencoba lagi.`},
		{"nowrap", tMarked(en, "shop.shipment.shipped", "When", nowrap("1 <Apr>")),
			`Shipped <span class="nowrap">1 &lt;Apr&gt;</span>`},
		{"a testid is escaped too", Mark("code", `a"b`, "x"),
			`<code data-testid="a&#34;b">x</code>`},
	} {
		var b strings.Builder
		if err := c.got.Render(context.Background(), &b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, b.String(), c.want)
		}
	}
}
