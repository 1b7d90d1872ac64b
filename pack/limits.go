package pack

import "slices"

// Limits on what one pack may hold, checked as bytes arrive (never trusted
// from headers), so a hostile archive fails with an error instead of
// filling memory. MaxFileSize bounds one text or structured file.
const (
	// MaxFiles bounds the files of one pack or campaign.
	MaxFiles = 10_000
	// MaxAssetSize bounds one image, sound or video.
	MaxAssetSize = 64 << 20
	// MaxPackSize bounds all of an archive's files, uncompressed.
	MaxPackSize = 256 << 20
)

var (
	imageExts = []string{".png", ".jpg", ".jpeg", ".webp", ".gif", ".svg"}
	audioExts = []string{".mp3", ".ogg", ".wav", ".flac"}
	videoExts = []string{".webm", ".mp4"}
)

// AssetType returns image, audio or video for a lower-case extension
// (".png"), else "".
func AssetType(ext string) string {
	switch {
	case slices.Contains(imageExts, ext):
		return "image"
	case slices.Contains(audioExts, ext):
		return "audio"
	case slices.Contains(videoExts, ext):
		return "video"
	}
	return ""
}

// AssetExtensions lists the extensions of one asset type (image, audio or
// video), for messages that tell an author what is accepted.
func AssetExtensions(kind string) []string {
	switch kind {
	case "image":
		return slices.Clone(imageExts)
	case "audio":
		return slices.Clone(audioExts)
	case "video":
		return slices.Clone(videoExts)
	}
	return nil
}
