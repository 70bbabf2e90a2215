package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"shop/store/demo"
)

// The shopping pages in Korean and Indonesian: the catalogue, a product,
// search, the cart, checkout with its errors, and an error page say their
// words in the chosen language, and money is written as that language
// writes it (Indonesian: a decimal comma). Every page is checked for
// message ids left in it (browser.do).
func TestShopPagesInKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	for _, tc := range []struct {
		lang                                       string
		all, coffee, sortNewest, add, price, stock string
		showing, cartTotal, toCheckout, added      string
		badQty, none, notFound, place, enterName   string
		cardHint, summaryTotal                     string
	}{
		{
			lang: "ko", all: "전체", coffee: "커피", sortNewest: "최신순", add: "장바구니에 담기", price: "€54.90", stock: "재고",
			showing: "개 표시", cartTotal: "€109.80", toCheckout: "결제하기", added: "핸드 그라인더 2개를 담았습니다.",
			badQty: "수량은 1에서 99 사이의 정수여야 합니다.", none: "일치하는 상품이 없습니다", notFound: "해당 상품을 찾을 수 없습니다.",
			place: "주문하기", enterName: "이름을 입력해 주세요.", cardHint: "결제 페이지에서 카드로", summaryTotal: `^€\d+\.\d\d$`,
		},
		{
			lang: "id", all: "Semua", coffee: "Kopi", sortNewest: "Terbaru dulu", add: "Tambah ke keranjang", price: "€54,90", stock: "Stok",
			showing: "Menampilkan", cartTotal: "€109,80", toCheckout: "Lanjut ke pembayaran", added: "2 × Penggiling Tangan ditambahkan.",
			badQty: "Jumlah harus bilangan bulat dari 1 sampai 99.", none: "Tidak ada yang cocok", notFound: "Produk itu tidak ditemukan.",
			place: "Buat pesanan", enterName: "Masukkan nama Anda.", cardHint: "dengan kartu di halaman pembayaran", summaryTotal: `^€\d+,\d\d$`,
		},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			b := s.browser(t)
			p := b.get("/products?lang=" + tc.lang)
			wantStatus(t, "catalogue", p, http.StatusOK)
			wantText(t, "all categories", p.testid("category-all"), tc.all)
			wantText(t, "category links", p.doc.Find(`[data-testid="category-link"]`), tc.coffee)
			wantText(t, "sort orders", p.testid("sort-select"), tc.sortNewest)
			wantText(t, "count", p.testid("catalogue-count"), tc.showing)

			p = b.get("/products/cf-grinder")
			wantText(t, "add button", p.testid("add-submit"), tc.add)
			wantText(t, "price", p.testid("product-price"), tc.price)
			wantText(t, "stock", p.testid("stock-total"), tc.stock)

			p = b.addToCart("cf-grinder", "0", "HX-Request", "true")
			wantStatus(t, "bad quantity", p, http.StatusUnprocessableEntity)
			wantText(t, "bad quantity", p.testid("add-error"), tc.badQty)
			p = b.addToCart("cf-grinder", "2", "HX-Request", "true")
			wantText(t, "added", p.testid("added"), tc.added)

			p = b.get("/cart")
			wantText(t, "cart total", p.testid("cart-total"), tc.cartTotal)
			wantText(t, "to checkout", p.testid("to-checkout"), tc.toCheckout)

			wantText(t, "no results", b.get("/search?q=zzzz").testid("search-none"), tc.none)
			p = b.get("/products/no-such-product")
			wantStatus(t, "missing product", p, http.StatusNotFound)
			wantText(t, "missing product", p.testid("error-message"), tc.notFound)

			b.signIn(demo.CustomerEmail, demo.CustomerPassword)
			b.get("/?lang=" + tc.lang) // sign-in read the shop in Ada's recorded English
			b.addToCart("cf-grinder", "2")
			p = b.get("/checkout")
			wantStatus(t, "checkout", p, http.StatusOK)
			wantText(t, "place order", p.testid("place-order"), tc.place)
			wantText(t, "where the card is typed", p.testid("card-on-page"), tc.cardHint)
			// Ada's cart holds what earlier runs added: only the way it is written is checked.
			if got := trim(p.testid("summary-total").Text()); !regexp.MustCompile(tc.summaryTotal).MatchString(got) {
				t.Errorf("summary total %q, want it written as %s", got, tc.summaryTotal)
			}
			key, _ := p.doc.Find(`input[name="key"]`).Attr("value")
			p = b.post("/checkout", url.Values{"key": {key}, "name": {""}})
			wantStatus(t, "checkout without a name", p, http.StatusUnprocessableEntity)
			wantText(t, "name error", p.testid("error-name"), tc.enterName)
			if strings.Contains(p.testid("error-summary").Text(), "Please check") {
				t.Errorf("the error summary is in English: %q", p.testid("error-summary").Text())
			}
		})
	}

	// The API's errors are for programs: English whatever the browser reads.
	b := s.browser(t)
	p := b.get("/api/v1/orders", "Accept-Language", "ko")
	if !strings.Contains(p.body, "send an API key") {
		t.Errorf("an API error in Korean: %s", p.body)
	}
}
