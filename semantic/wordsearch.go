package semantic

// byteFreq is how often each ASCII byte occurs in Python source, per
// 100,000 bytes (counted over CPython 3.11's library with its
// site-packages); other bytes count as 0.
var byteFreq = [128]uint16{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2836, 0, 0, 18, 0, 0, // 0x00
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
	26355, 16, 1244, 267, 12, 36, 7, 883, 1332, 1331, 334, 136, 1648, 454, 1250, 126, // 0x20
	577, 527, 429, 273, 212, 206, 169, 153, 159, 151, 1056, 13, 39, 822, 201, 19, // 0x30
	27, 332, 95, 231, 170, 346, 154, 115, 64, 234, 18, 44, 175, 152, 253, 139, // 0x40
	191, 33, 223, 342, 348, 79, 65, 96, 31, 22, 28, 289, 159, 289, 10, 1591, // 0x50
	148, 3642, 697, 1882, 1777, 6516, 1669, 896, 954, 3325, 92, 370, 2464, 1402, 3277, 3199, // 0x60
	1582, 158, 3686, 4014, 4460, 1446, 422, 402, 598, 734, 107, 96, 42, 96, 14, 0, // 0x70
}

// FreqOf is b's frequency in byteFreq (0 for a byte past ASCII).
func FreqOf(b byte) int {
	if b < 128 {
		return int(byteFreq[b])
	}
	return 0
}
