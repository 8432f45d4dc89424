package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// config is /e2e.json, written by scripts/kbuild-e2e.sh.
type config struct {
	// VmlinuxBTFSHA256 is the SHA-256 (hex) of vmlinux's .BTF section.
	VmlinuxBTFSHA256 string `json:"vmlinux_btf_sha256"`
	// Modules are loaded in this order (a module that fails is tried again
	// after the others, for dependencies).
	Modules []module `json:"modules"`
	// Fentry is a vmlinux function getpid(2) calls.
	Fentry string `json:"fentry"`
	// FexitModule and Fexit name a function of a module that reading
	// binfmt_misc's status file calls.
	FexitModule string `json:"fexit_module"`
	Fexit       string `json:"fexit"`
	// Excluded, when set, is a vmlinux function left out of BTF by rules:
	// attaching to it must fail.
	Excluded string `json:"excluded"`
	// Triggers is how many times each program is triggered.
	Triggers int `json:"triggers"`
}

// module is a module file in the initramfs.
type module struct {
	Path string `json:"path"`
	// Name is the module's name (the file name without .ko, '-' as '_'),
	// as /sys/kernel/btf names it.
	Name      string `json:"name"`
	BTFSHA256 string `json:"btf_sha256"`
}

func loadConfig(path string) (*config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	var c config
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

func (c *config) validate() error {
	switch {
	case c.VmlinuxBTFSHA256 == "":
		return errors.New("vmlinux_btf_sha256 missing")
	case c.Fentry == "":
		return errors.New("fentry missing")
	case c.Fexit == "" || c.FexitModule == "":
		return errors.New("fexit or fexit_module missing")
	case c.Triggers <= 0:
		return errors.New("triggers must be positive")
	}
	for i, m := range c.Modules {
		if m.Path == "" || m.Name == "" || m.BTFSHA256 == "" {
			return fmt.Errorf("module %d: path, name and btf_sha256 are required", i)
		}
	}
	return nil
}
