package paths

import "strconv"

// The patterns of the pictures' routes (under /media, their names carry
// their content's hash, so a browser keeps them for a year) and of a
// product's photo upload, each filled by the builder of its name.
const (
	PhotoPattern             = "/media/photos/:key/:file"
	DrawnPicturePattern      = "/media/drawn/:category/:file"
	AdminProductPhotoPattern = "/admin/products/:id/photo"
)

// Photo is a copy of a product photo, width pixels wide, of the extension
// ext ("jpg", "png"); key is the photo's content hash.
func Photo(key string, width int, ext string) string {
	return fill(PhotoPattern, key, strconv.Itoa(width)+"."+ext)
}

// DrawnPicture is the picture the shop draws for a product without a photo:
// a category's colours and the seed of its name.
func DrawnPicture(category, seed string) string {
	return fill(DrawnPicturePattern, category, seed+".svg")
}

// AdminProductPhoto takes a product's new photo (POST, multipart).
func AdminProductPhoto(id string) string { return fill(AdminProductPhotoPattern, id) }
