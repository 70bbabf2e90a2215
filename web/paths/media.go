package paths

import "strconv"

// media is where product pictures are served: their names carry their
// content's hash, so a browser keeps them for a year.
const media = "/media"

// Photo is a copy of a product photo, width pixels wide, of the extension
// ext ("jpg", "png"); key is the photo's content hash.
func Photo(key string, width int, ext string) string {
	return under(media, "photos", key, strconv.Itoa(width)+"."+ext)
}

// DrawnPicture is the picture the shop draws for a product without a photo:
// a category's colours and the seed of its name.
func DrawnPicture(category, seed string) string {
	return under(media, "drawn", category, seed+".svg")
}

// AdminProductPhoto takes a product's new photo (POST, multipart).
func AdminProductPhoto(id string) string { return under(AdminProducts, id, "photo") }
