package tcpao

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
)

// cmac is AES-CMAC (RFC 4493) over crypto/aes, streaming, with the expanded
// key and the subkeys K1, K2 computed once. It allocates only in newCMAC.
type cmac struct {
	b      cipher.Block
	k1, k2 [aes.BlockSize]byte
	x      [aes.BlockSize]byte // CBC chaining value
	buf    [aes.BlockSize]byte // the pending block: never processed until more data follows
	n      int                 // bytes in buf
}

// newCMAC prepares key (16 bytes: AES-128).
func newCMAC(key []byte) (*cmac, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	c := &cmac{b: b}
	// RFC 4493 §2.3: L = AES(K, 0^128); K1 = L<<1 (^ Rb if msb(L));
	// K2 = K1<<1 (^ Rb if msb(K1)).
	var l [aes.BlockSize]byte
	b.Encrypt(l[:], l[:])
	dbl(&c.k1, &l)
	dbl(&c.k2, &c.k1)
	clear(l[:])
	return c, nil
}

// dbl sets d to s doubled in GF(2^128) (a left shift with the constant Rb
// 0x87 folded in when the top bit falls out), in constant time.
func dbl(d, s *[aes.BlockSize]byte) {
	carry := s[0] >> 7
	for i := 0; i < aes.BlockSize-1; i++ {
		d[i] = s[i]<<1 | s[i+1]>>7
	}
	d[aes.BlockSize-1] = s[aes.BlockSize-1]<<1 ^ (0x87 & -carry)
}

func (c *cmac) reset() {
	clear(c.x[:])
	c.n = 0
}

// write adds p to the message. The last block is kept in buf until sum,
// which needs to know whether it is complete.
func (c *cmac) write(p []byte) {
	for len(p) > 0 {
		if c.n == aes.BlockSize {
			subtle.XORBytes(c.x[:], c.x[:], c.buf[:])
			c.b.Encrypt(c.x[:], c.x[:])
			c.n = 0
		}
		if c.n == 0 {
			// Whole blocks straight from p, keeping the last for sum.
			for len(p) > aes.BlockSize {
				subtle.XORBytes(c.x[:], c.x[:], p[:aes.BlockSize])
				c.b.Encrypt(c.x[:], c.x[:])
				p = p[aes.BlockSize:]
			}
		}
		m := copy(c.buf[c.n:], p)
		c.n += m
		p = p[m:]
	}
}

// sum finishes the MAC and copies it into out (RFC 4493 §2.4 steps 3-6);
// it also stays in c.x. The state must be reset before the next message.
func (c *cmac) sum(out []byte) {
	if c.n == aes.BlockSize {
		subtle.XORBytes(c.buf[:], c.buf[:], c.k1[:])
	} else {
		c.buf[c.n] = 0x80
		clear(c.buf[c.n+1:])
		subtle.XORBytes(c.buf[:], c.buf[:], c.k2[:])
	}
	subtle.XORBytes(c.x[:], c.x[:], c.buf[:])
	c.b.Encrypt(c.x[:], c.x[:])
	copy(out, c.x[:])
}

// clone returns a cmac with the same key and its own state.
func (c *cmac) clone() *cmac {
	d := *c
	d.reset()
	return &d
}

// cmacSum is the one-shot AES-CMAC of msg under key (16 bytes).
func cmacSum(key, msg []byte) ([aes.BlockSize]byte, error) {
	var out [aes.BlockSize]byte
	c, err := newCMAC(key)
	if err != nil {
		return out, err
	}
	c.write(msg)
	c.sum(out[:])
	c.wipe()
	return out, nil
}

// wipe clears the subkeys and state (the expanded key inside crypto/aes
// cannot be reached).
func (c *cmac) wipe() {
	clear(c.k1[:])
	clear(c.k2[:])
	clear(c.x[:])
	clear(c.buf[:])
}
