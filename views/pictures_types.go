package views

import (
	"strconv"
	"strings"
	"time"

	"shop/store"
	"shop/store/photos"
	"shop/web/paths"
)

// Picture is a product's picture as an <img> draws it: its uploaded photo
// (resized copies in srcset) or, without one, the picture the shop draws.
// Width and Height are the picture's own, so the browser reserves its space
// before it loads; the category's colours fill that space meanwhile.
type Picture struct {
	Src      string
	Srcset   string // "" for a drawn picture (one SVG fits every width)
	Width    int
	Height   int
	Category string
}

// Sizes say how wide a picture is drawn, for the browser to pick from
// srcset: a card is a column of the grid, the product page's picture two
// fifths of the main column.
const (
	cardSizes    = "(min-width: 1280px) 300px, (min-width: 576px) 45vw, 90vw"
	productSizes = "(min-width: 1280px) 500px, (min-width: 768px) 40vw, 90vw"
)

// ProductPicture is the picture of a product.
func ProductPicture(p store.Product) Picture {
	ph := p.Photo
	if ph.Key == "" || ph.Width <= 0 || ph.Height <= 0 {
		return Picture{Category: p.Category, Src: paths.DrawnPicture(p.Category, photos.DrawnSeed(p.Category, p.Name)),
			Width: photos.DrawnWidth, Height: photos.DrawnHeight}
	}
	return PhotoPicture(ph, p.Category)
}

// PhotoPicture is an uploaded photo (a product's, a drop's) as an <img>
// draws it: its resized copies in srcset.
func PhotoPicture(ph store.Photo, category string) Picture {
	pic := Picture{Category: category}
	ext := photos.Extension(ph.Format)
	var set []string
	for _, w := range ph.Widths() {
		u := paths.Photo(ph.Key, w, ext)
		set = append(set, u+" "+strconv.Itoa(w)+"w")
		// The src (browsers without srcset) is the copy nearest 640 wide.
		if pic.Src == "" || w <= 640 {
			pic.Src = u
		}
	}
	pic.Srcset = strings.Join(set, ", ")
	pic.Width, pic.Height = ph.Width, ph.Height
	return pic
}

// dropCardPicture is a drop's picture on its card: its product's, else
// the photo staff gave it; none for a drop with neither.
func dropCardPicture(d store.Drop, products map[string]store.Product) (Picture, bool) {
	if prod, ok := products[d.ProductID]; ok && d.ProductID != "" {
		return ProductPicture(prod), true
	}
	if d.Photo.Key != "" && d.Photo.Width > 0 && d.Photo.Height > 0 {
		return PhotoPicture(d.Photo, ""), true
	}
	return Picture{}, false
}

// redeemHours is how many hours a product drop's ticket buys its unit.
func redeemHours(d store.Drop) int { return int(d.RedeemWithin / time.Hour) }
