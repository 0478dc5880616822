/** Whether a UTF-16 code is an ASCII letter, either case (what name and contact cells are read in). */
export const isAsciiLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** Whether a UTF-16 code is an ASCII digit (house numbers, dates, phones and ZIPs are read in them). */
export const isAsciiDigit = (c: number): boolean => c >= 48 && c <= 57;
