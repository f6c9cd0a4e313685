package api

// BackupFile is a backup made by BackupInDir.
type BackupFile struct {
	Path      string `json:"path"`       // the copy's file on the server
	Bytes     int64  `json:"bytes"`      // its size
	ElapsedMS int64  `json:"elapsed_ms"` // how long making it took
}
