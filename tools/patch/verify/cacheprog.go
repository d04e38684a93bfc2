package verify

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The go command's build cache is where one check could plant what a later
// one trusts. So checks reach it through a GOCACHEPROG that this package
// serves (the helper, in the check's sandbox): it reads the shared cache
// and writes either the shared cache (a check that runs no code of the
// repository: gofmt, go vet, go build) or, for go test, a private
// directory on the check's tmpfs, while the shared cache is mounted
// read-only. The layout is this package's own: shared/a/<action id> holds
// "<output id> <size> <unix nanoseconds>", shared/o/<output id> the output.

// cacheProgConfig is the value of cacheProgEnv.
type cacheProgConfig struct {
	Shared  string // "" for no shared cache
	Private string // where puts go when the shared cache is read-only
	Write   bool   // puts go to the shared cache
}

func (c cacheProgConfig) encode() string {
	b, _ := json.Marshal(c)
	return string(b)
}

type cacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type cacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// serveCacheProg speaks the GOCACHEPROG protocol on r and w until the go
// command closes it, and returns the exit status.
func serveCacheProg(config string, r io.Reader, w io.Writer) int {
	var cfg cacheProgConfig
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "verify cache: bad configuration:", err)
		return 2
	}
	dirs := []string{cfg.Private}
	if cfg.Shared != "" {
		dirs = append(dirs, cfg.Shared)
	}
	put := cfg.Private
	if cfg.Write && cfg.Shared != "" {
		put = cfg.Shared
	}
	for _, d := range []string{put} {
		for _, sub := range []string{"a", "o"} {
			// Group-writable: the shared cache's group is every sandbox's
			// (see shareCache); a private cache's parent is private.
			if err := os.MkdirAll(filepath.Join(d, sub), 0o770); err != nil {
				fmt.Fprintln(os.Stderr, "verify cache:", err)
				return 2
			}
		}
	}
	in := bufio.NewReader(r)
	dec := json.NewDecoder(in)
	enc := json.NewEncoder(w)
	if enc.Encode(cacheResponse{KnownCommands: []string{"get", "put", "close"}}) != nil {
		return 2
	}
	for {
		var req cacheRequest
		if err := dec.Decode(&req); err != nil {
			if err == io.EOF {
				return 0
			}
			fmt.Fprintln(os.Stderr, "verify cache: reading a request:", err)
			return 2
		}
		resp := cacheResponse{ID: req.ID}
		switch req.Command {
		case "get":
			cacheGet(dirs, req.ActionID, &resp)
		case "put":
			var body []byte
			if req.BodySize > 0 {
				if err := dec.Decode(&body); err != nil {
					fmt.Fprintln(os.Stderr, "verify cache: reading a body:", err)
					return 2
				}
			}
			if err := cachePut(put, req, body, &resp); err != nil {
				resp.Err = err.Error()
			}
		case "close":
			enc.Encode(resp)
			return 0
		default:
			resp.Err = "unknown command " + req.Command
		}
		if enc.Encode(resp) != nil {
			return 2
		}
	}
}

func cacheGet(dirs []string, action []byte, resp *cacheResponse) {
	id := hex.EncodeToString(action)
	for _, d := range dirs {
		entry, err := os.ReadFile(filepath.Join(d, "a", id))
		if err != nil {
			continue
		}
		f := strings.Fields(string(entry))
		if len(f) != 3 {
			continue
		}
		out, err1 := hex.DecodeString(f[0])
		size, err2 := strconv.ParseInt(f[1], 10, 64)
		nanos, err3 := strconv.ParseInt(f[2], 10, 64)
		path := filepath.Join(d, "o", f[0])
		if st, err := os.Stat(path); err1 != nil || err2 != nil || err3 != nil || err != nil || st.Size() != size {
			continue
		}
		t := time.Unix(0, nanos)
		resp.OutputID, resp.Size, resp.Time, resp.DiskPath = out, size, &t, path
		return
	}
	resp.Miss = true
}

func cachePut(dir string, req cacheRequest, body []byte, resp *cacheResponse) error {
	if int64(len(body)) != req.BodySize {
		return fmt.Errorf("body of %d bytes, want %d", len(body), req.BodySize)
	}
	out := hex.EncodeToString(req.OutputID)
	path := filepath.Join(dir, "o", out)
	if err := writeAtomic(path, body); err != nil {
		return err
	}
	entry := fmt.Sprintf("%s %d %d\n", out, len(body), time.Now().UnixNano())
	if err := writeAtomic(filepath.Join(dir, "a", hex.EncodeToString(req.ActionID)), []byte(entry)); err != nil {
		return err
	}
	resp.DiskPath = path
	return nil
}

// writeAtomic writes a file under a temporary name and renames it, so a
// concurrent reader sees the whole file or none.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	// Readable by the group: checks of other uids read the shared cache.
	if err := f.Chmod(0o640); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
