-- Pictures are no longer all WebP: a JPEG in a PDF is kept as it is. The
-- bytes column gets a neutral name and each picture its media type; the
-- pictures stored before are WebP.
ALTER TABLE library_images RENAME COLUMN webp TO data;
ALTER TABLE library_images ADD COLUMN media_type TEXT NOT NULL DEFAULT 'image/webp';
