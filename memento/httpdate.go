package memento

import (
	"net/http"
	"time"
)

// parseRFC1123Fast reads exactly the RFC 7089 §2.1.1 form "Mon, 02 Jan
// 2006 15:04:05 GMT" without allocating, with time.Parse(http.TimeFormat)'s
// rules (the weekday name must be one, its value is not checked; fields
// must be in range); ok is false for anything else, the zero time
// included.
func parseRFC1123Fast(b string) (time.Time, bool) {
	if len(b) != 29 || b[3] != ',' || b[4] != ' ' || b[7] != ' ' || b[11] != ' ' || b[16] != ' ' ||
		b[19] != ':' || b[22] != ':' || b[25] != ' ' || b[26] != 'G' || b[27] != 'M' || b[28] != 'T' {
		return time.Time{}, false
	}
	switch b[:3] {
	case "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat":
	default:
		return time.Time{}, false
	}
	mon := 0
	switch b[8:11] {
	case "Jan":
		mon = 1
	case "Feb":
		mon = 2
	case "Mar":
		mon = 3
	case "Apr":
		mon = 4
	case "May":
		mon = 5
	case "Jun":
		mon = 6
	case "Jul":
		mon = 7
	case "Aug":
		mon = 8
	case "Sep":
		mon = 9
	case "Oct":
		mon = 10
	case "Nov":
		mon = 11
	case "Dec":
		mon = 12
	default:
		return time.Time{}, false
	}
	num := func(p string) int {
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	day, year, hh, mm, ss := num(b[5:7]), num(b[12:16]), num(b[17:19]), num(b[20:22]), num(b[23:25])
	if day < 1 || day > daysIn(mon, year) || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 59 {
		return time.Time{}, false // 31 Apr and the like too
	}
	if year == 1 && mon == 1 && day == 1 && hh == 0 && mm == 0 && ss == 0 {
		return time.Time{}, false // the zero time, which the lenient parser refuses
	}
	return time.Unix(daysFromCivil(year, mon, day)*86400+int64(hh*3600+mm*60+ss), 0).UTC(), true
}

// daysIn is the number of days of month (1-12) in year (Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// AppendHTTPDate appends t in UTC to b as an rfc1123-date, the
// IMF-fixdate form of RFC 9110 §5.6.7 and RFC 7089 §2.1.1 (http.TimeFormat:
// "Sun, 06 Nov 1994 08:49:37 GMT"), and returns the extended slice: the
// bytes t.UTC().AppendFormat(b, http.TimeFormat) appends, written for the
// years 0-9999 without reading a layout and with one conversion of the
// instant to its date (TimeMaps write thousands); other years take
// AppendFormat's path. It never fails; sub-second parts are dropped.
func AppendHTTPDate(b []byte, t time.Time) []byte {
	sec := t.Unix()
	days, tod := floorDiv(sec, 86400), floorMod(sec, 86400)
	y, mo, d := civilFromDays(days)
	if y < 0 || y > 9999 {
		return t.UTC().AppendFormat(b, http.TimeFormat)
	}
	hh, mm, ss := int(tod/3600), int(tod/60%60), int(tod%60)
	const wdays = "SunMonTueWedThuFriSat"
	const months = "JanFebMarAprMayJunJulAugSepOctNovDec"
	wd := int(floorMod(days+4, 7)) * 3 // 1970-01-01 was a Thursday
	m3 := (mo - 1) * 3
	return append(b, wdays[wd], wdays[wd+1], wdays[wd+2], ',', ' ',
		byte('0'+d/10), byte('0'+d%10), ' ', months[m3], months[m3+1], months[m3+2], ' ',
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), ' ',
		byte('0'+hh/10), byte('0'+hh%10), ':', byte('0'+mm/10), byte('0'+mm%10), ':', byte('0'+ss/10), byte('0'+ss%10),
		' ', 'G', 'M', 'T')
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// civilFromDays is the proleptic Gregorian date of the day days after
// 1970-01-01 (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
func civilFromDays(days int64) (year, month, day int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	y := yoe + era*400
	if m <= 2 {
		y++
	}
	return int(y), int(m), int(d)
}

// daysFromCivil is civilFromDays's inverse for a valid date.
func daysFromCivil(year, month, day int) int64 {
	y, m := int64(year), int64(month)
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + int64(day) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
