package atomicfile

import "math/rand/v2"

func randUint32() uint32 { return rand.Uint32() }
