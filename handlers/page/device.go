package page

import "strings"

// DeviceOf describes the browser and system a User-Agent names, as a
// customer recognises them on their sessions page ("Firefox on Linux").
// It is a label, not a check: a browser can send anything, so it is only
// shown, to its own customer. Order matters: Edge and Opera also say
// Chrome, Chrome also says Safari, Android also says Linux, iOS Mac OS X.
func DeviceOf(userAgent string) string {
	ua := strings.ToLower(userAgent)
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(ua, x) {
				return true
			}
		}
		return false
	}
	browser := "A browser"
	switch {
	case has("edg/", "edga/", "edgios/"):
		browser = "Edge"
	case has("opr/", "opera"):
		browser = "Opera"
	case has("samsungbrowser"):
		browser = "Samsung Internet"
	case has("firefox/", "fxios/"):
		browser = "Firefox"
	case has("chrome/", "crios/", "chromium/"):
		browser = "Chrome"
	case has("safari/"):
		browser = "Safari"
	case has("curl/", "wget/", "go-http-client", "python"):
		browser = "A program"
	}
	system := ""
	switch {
	case has("iphone"):
		system = "iPhone"
	case has("ipad"):
		system = "iPad"
	case has("android"):
		system = "Android"
	case has("windows"):
		system = "Windows"
	case has("cros "): // "CrOS x86_64"; not the "cros" of "microsoft"
		system = "ChromeOS"
	case has("mac os x", "macintosh"):
		system = "macOS"
	case has("linux", "x11"):
		system = "Linux"
	}
	if system == "" {
		return browser
	}
	return browser + " on " + system
}
