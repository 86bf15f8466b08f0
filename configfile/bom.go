package configfile

import "bytes"

// utf8BOM is the byte order mark Visual Studio and Windows Notepad write at
// the start of a UTF-8 file (appsettings.json, .properties, .env).
var utf8BOM = []byte("\xef\xbb\xbf")

// bomAware lets a format read a file that starts with a UTF-8 BOM: the
// parser sees the text after it (encoding/json refuses a BOM, and it would
// be part of the first key of a .properties file), and byte ranges are
// shifted back onto the file as read, so an edit keeps the BOM. Lines and
// columns are those of the text, as an editor shows them.
func bomAware(values func([]byte) ([]Value, error)) func([]byte) ([]Value, error) {
	return func(data []byte) ([]Value, error) {
		if !bytes.HasPrefix(data, utf8BOM) {
			return values(data)
		}
		vals, err := values(data[len(utf8BOM):])
		for i := range vals {
			vals[i].Start += len(utf8BOM)
			vals[i].End += len(utf8BOM)
		}
		return vals, err
	}
}
