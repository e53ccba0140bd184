package aggregator

import (
	"errors"
	"io"
)

// OpenMementoMap opens a MementoMap file for routing.
func OpenMementoMap(path string) (MapLookup, io.Closer, error) {
	return nil, nil, errors.New("TODO: mementomap package not landed")
}
