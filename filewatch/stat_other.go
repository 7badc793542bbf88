//go:build !unix

package filewatch

import "os"

// inode is 0 where the system has no inode numbers: the resolved path,
// size and modification time still tell.
func inode(os.FileInfo) uint64 { return 0 }
