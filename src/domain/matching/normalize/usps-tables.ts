/**
 * Street-address standardization tables, written by us from USPS Publication 28 ("Postal Addressing
 * Standards"): Appendix C1 (street suffixes), the directionals of section 233, Appendix C2 (secondary
 * unit designators). The name-word and route-name tables at the end are our own additions for matching
 * (Pub 28 leaves most street-name words alone); each says why.
 *
 * Everything here is upper-case ASCII, because the address tokenizer upper-cases and strips accents
 * before any lookup. The Maps are built once at module load and never mutated (typed read-only).
 */

/**
 * Appendix C1, in its order: [primary street suffix name, Postal Service standard abbreviation, the
 * other "commonly used" spellings Pub 28 lists (space-separated; the primary name and the standard
 * abbreviation themselves are implied)]. A few primaries share a standard abbreviation (PARK/PARKS,
 * SPUR/SPURS, WALK/WALKS, PARKWAY/PARKWAYS), as in Pub 28.
 */
export const STREET_SUFFIX_ROWS: readonly (readonly [primary: string, standard: string, variants: string])[] =
  Object.freeze([
    ['ALLEY', 'ALY', 'ALLEE ALLY'],
    ['ANEX', 'ANX', 'ANNEX ANNX'],
    ['ARCADE', 'ARC', ''],
    ['AVENUE', 'AVE', 'AV AVEN AVENU AVN AVNUE'],
    ['BAYOU', 'BYU', 'BAYOO'],
    ['BEACH', 'BCH', ''],
    ['BEND', 'BND', ''],
    ['BLUFF', 'BLF', 'BLUF'],
    ['BLUFFS', 'BLFS', ''],
    ['BOTTOM', 'BTM', 'BOT BOTTM'],
    ['BOULEVARD', 'BLVD', 'BOUL BOULV'],
    ['BRANCH', 'BR', 'BRNCH'],
    ['BRIDGE', 'BRG', 'BRDGE'],
    ['BROOK', 'BRK', ''],
    ['BROOKS', 'BRKS', ''],
    ['BURG', 'BG', ''],
    ['BURGS', 'BGS', ''],
    ['BYPASS', 'BYP', 'BYPA BYPAS BYPS'],
    ['CAMP', 'CP', 'CMP'],
    ['CANYON', 'CYN', 'CANYN CNYN'],
    ['CAPE', 'CPE', ''],
    ['CAUSEWAY', 'CSWY', 'CAUSWA'],
    ['CENTER', 'CTR', 'CEN CENT CENTR CENTRE CNTER CNTR'],
    ['CENTERS', 'CTRS', ''],
    ['CIRCLE', 'CIR', 'CIRC CIRCL CRCL CRCLE'],
    ['CIRCLES', 'CIRS', ''],
    ['CLIFF', 'CLF', ''],
    ['CLIFFS', 'CLFS', ''],
    ['CLUB', 'CLB', ''],
    ['COMMON', 'CMN', ''],
    ['COMMONS', 'CMNS', ''],
    ['CORNER', 'COR', ''],
    ['CORNERS', 'CORS', ''],
    ['COURSE', 'CRSE', ''],
    ['COURT', 'CT', ''],
    ['COURTS', 'CTS', ''],
    ['COVE', 'CV', ''],
    ['COVES', 'CVS', ''],
    ['CREEK', 'CRK', ''],
    ['CRESCENT', 'CRES', 'CRSENT CRSNT'],
    ['CREST', 'CRST', ''],
    ['CROSSING', 'XING', 'CRSSNG'],
    ['CROSSROAD', 'XRD', ''],
    ['CROSSROADS', 'XRDS', ''],
    ['CURVE', 'CURV', ''],
    ['DALE', 'DL', ''],
    ['DAM', 'DM', ''],
    ['DIVIDE', 'DV', 'DIV DVD'],
    ['DRIVE', 'DR', 'DRIV DRV'],
    ['DRIVES', 'DRS', ''],
    ['ESTATE', 'EST', ''],
    ['ESTATES', 'ESTS', ''],
    ['EXPRESSWAY', 'EXPY', 'EXP EXPR EXPRESS EXPW'],
    ['EXTENSION', 'EXT', 'EXTN EXTNSN'],
    ['EXTENSIONS', 'EXTS', ''],
    ['FALL', 'FALL', ''],
    ['FALLS', 'FLS', ''],
    ['FERRY', 'FRY', 'FRRY'],
    ['FIELD', 'FLD', ''],
    ['FIELDS', 'FLDS', ''],
    ['FLAT', 'FLT', ''],
    ['FLATS', 'FLTS', ''],
    ['FORD', 'FRD', ''],
    ['FORDS', 'FRDS', ''],
    ['FOREST', 'FRST', 'FORESTS'],
    ['FORGE', 'FRG', 'FORG'],
    ['FORGES', 'FRGS', ''],
    ['FORK', 'FRK', ''],
    ['FORKS', 'FRKS', ''],
    ['FORT', 'FT', 'FRT'],
    ['FREEWAY', 'FWY', 'FREEWY FRWAY FRWY'],
    ['GARDEN', 'GDN', 'GARDN GRDEN GRDN'],
    ['GARDENS', 'GDNS', 'GRDNS'],
    ['GATEWAY', 'GTWY', 'GATEWY GATWAY GTWAY'],
    ['GLEN', 'GLN', ''],
    ['GLENS', 'GLNS', ''],
    ['GREEN', 'GRN', ''],
    ['GREENS', 'GRNS', ''],
    ['GROVE', 'GRV', 'GROV'],
    ['GROVES', 'GRVS', ''],
    ['HARBOR', 'HBR', 'HARB HARBR HRBOR'],
    ['HARBORS', 'HBRS', ''],
    ['HAVEN', 'HVN', ''],
    ['HEIGHTS', 'HTS', 'HT'],
    ['HIGHWAY', 'HWY', 'HIGHWY HIWAY HIWY HWAY'],
    ['HILL', 'HL', ''],
    ['HILLS', 'HLS', ''],
    ['HOLLOW', 'HOLW', 'HLLW HOLLOWS HOLWS'],
    ['INLET', 'INLT', ''],
    ['ISLAND', 'IS', 'ISLND'],
    ['ISLANDS', 'ISS', 'ISLNDS'],
    ['ISLE', 'ISLE', 'ISLES'],
    ['JUNCTION', 'JCT', 'JCTION JCTN JUNCTN JUNCTON'],
    ['JUNCTIONS', 'JCTS', 'JCTNS'],
    ['KEY', 'KY', ''],
    ['KEYS', 'KYS', ''],
    ['KNOLL', 'KNL', 'KNOL'],
    ['KNOLLS', 'KNLS', ''],
    ['LAKE', 'LK', ''],
    ['LAKES', 'LKS', ''],
    ['LAND', 'LAND', ''],
    ['LANDING', 'LNDG', 'LNDNG'],
    ['LANE', 'LN', ''],
    ['LIGHT', 'LGT', ''],
    ['LIGHTS', 'LGTS', ''],
    ['LOAF', 'LF', ''],
    ['LOCK', 'LCK', ''],
    ['LOCKS', 'LCKS', ''],
    ['LODGE', 'LDG', 'LDGE LODG'],
    ['LOOP', 'LOOP', 'LOOPS'],
    ['MALL', 'MALL', ''],
    ['MANOR', 'MNR', ''],
    ['MANORS', 'MNRS', ''],
    ['MEADOW', 'MDW', ''],
    // Pub 28 also lists MDW under MEADOWS; MDW stays MEADOW's standard abbreviation (see the builder).
    ['MEADOWS', 'MDWS', 'MDW MEDOWS'],
    ['MEWS', 'MEWS', ''],
    ['MILL', 'ML', ''],
    ['MILLS', 'MLS', ''],
    ['MISSION', 'MSN', 'MISSN MSSN'],
    ['MOTORWAY', 'MTWY', ''],
    ['MOUNT', 'MT', 'MNT'],
    ['MOUNTAIN', 'MTN', 'MNTAIN MNTN MOUNTIN MTIN'],
    ['MOUNTAINS', 'MTNS', 'MNTNS'],
    ['NECK', 'NCK', ''],
    ['ORCHARD', 'ORCH', 'ORCHRD'],
    ['OVAL', 'OVAL', 'OVL'],
    ['OVERPASS', 'OPAS', ''],
    ['PARK', 'PARK', 'PRK'],
    ['PARKS', 'PARK', ''],
    ['PARKWAY', 'PKWY', 'PARKWY PKWAY PKY'],
    ['PARKWAYS', 'PKWY', 'PKWYS'],
    ['PASS', 'PASS', ''],
    ['PASSAGE', 'PSGE', ''],
    ['PATH', 'PATH', 'PATHS'],
    ['PIKE', 'PIKE', 'PIKES'],
    ['PINE', 'PNE', ''],
    ['PINES', 'PNES', ''],
    ['PLACE', 'PL', ''],
    ['PLAIN', 'PLN', ''],
    ['PLAINS', 'PLNS', ''],
    ['PLAZA', 'PLZ', 'PLZA'],
    ['POINT', 'PT', ''],
    ['POINTS', 'PTS', ''],
    ['PORT', 'PRT', ''],
    ['PORTS', 'PRTS', ''],
    ['PRAIRIE', 'PR', 'PRR'],
    ['RADIAL', 'RADL', 'RAD RADIEL'],
    ['RAMP', 'RAMP', ''],
    ['RANCH', 'RNCH', 'RANCHES RNCHS'],
    ['RAPID', 'RPD', ''],
    ['RAPIDS', 'RPDS', ''],
    ['REST', 'RST', ''],
    ['RIDGE', 'RDG', 'RDGE'],
    ['RIDGES', 'RDGS', ''],
    ['RIVER', 'RIV', 'RIVR RVR'],
    ['ROAD', 'RD', ''],
    ['ROADS', 'RDS', ''],
    ['ROUTE', 'RTE', ''],
    ['ROW', 'ROW', ''],
    ['RUE', 'RUE', ''],
    ['RUN', 'RUN', ''],
    ['SHOAL', 'SHL', ''],
    ['SHOALS', 'SHLS', ''],
    ['SHORE', 'SHR', 'SHOAR'],
    ['SHORES', 'SHRS', 'SHOARS'],
    ['SKYWAY', 'SKWY', ''],
    ['SPRING', 'SPG', 'SPNG SPRNG'],
    ['SPRINGS', 'SPGS', 'SPNGS SPRNGS'],
    ['SPUR', 'SPUR', ''],
    ['SPURS', 'SPUR', ''],
    ['SQUARE', 'SQ', 'SQR SQRE SQU'],
    ['SQUARES', 'SQS', 'SQRS'],
    ['STATION', 'STA', 'STATN STN'],
    ['STRAVENUE', 'STRA', 'STRAV STRAVEN STRAVN STRVN STRVNUE'],
    ['STREAM', 'STRM', 'STREME'],
    ['STREET', 'ST', 'STRT STR'],
    ['STREETS', 'STS', ''],
    ['SUMMIT', 'SMT', 'SUMIT SUMITT'],
    ['TERRACE', 'TER', 'TERR'],
    ['THROUGHWAY', 'TRWY', ''],
    ['TRACE', 'TRCE', 'TRACES'],
    ['TRACK', 'TRAK', 'TRACKS TRK TRKS'],
    ['TRAFFICWAY', 'TRFY', ''],
    ['TRAIL', 'TRL', 'TRAILS TRLS'],
    ['TRAILER', 'TRLR', 'TRLRS'],
    ['TUNNEL', 'TUNL', 'TUNEL TUNLS TUNNELS TUNNL'],
    ['TURNPIKE', 'TPKE', 'TRNPK TURNPK'],
    ['UNDERPASS', 'UPAS', ''],
    ['UNION', 'UN', ''],
    ['UNIONS', 'UNS', ''],
    ['VALLEY', 'VLY', 'VALLY VLLY'],
    ['VALLEYS', 'VLYS', ''],
    ['VIADUCT', 'VIA', 'VDCT VIADCT'],
    ['VIEW', 'VW', ''],
    ['VIEWS', 'VWS', ''],
    ['VILLAGE', 'VLG', 'VILL VILLAG VILLG VILLIAGE'],
    ['VILLAGES', 'VLGS', ''],
    ['VILLE', 'VL', ''],
    ['VISTA', 'VIS', 'VIST VST VSTA'],
    ['WALK', 'WALK', ''],
    ['WALKS', 'WALK', ''],
    ['WALL', 'WALL', ''],
    ['WAY', 'WAY', 'WY'],
    ['WAYS', 'WAYS', ''],
    ['WELL', 'WL', ''],
    ['WELLS', 'WLS', ''],
  ] as const);

/** Every C1 spelling (primary name, standard abbreviation, variant) → the standard abbreviation. */
export const STREET_SUFFIXES: ReadonlyMap<string, string> = buildSuffixMap();

/** The distinct C1 standard abbreviations. */
export const STANDARD_SUFFIXES: ReadonlySet<string> = new Set(STREET_SUFFIX_ROWS.map((row) => row[1]));

function buildSuffixMap(): Map<string, string> {
  const map = new Map<string, string>();
  for (const [primary, standard, variants] of STREET_SUFFIX_ROWS) {
    map.set(primary, standard);
    for (const variant of variants.split(' ')) if (variant !== '') map.set(variant, standard);
  }
  // Last, so that a spelling which is one suffix's standard abbreviation and another's variant (MDW)
  // keeps its standard meaning: a standardized address must come back unchanged.
  for (const row of STREET_SUFFIX_ROWS) map.set(row[1], row[1]);
  return map;
}

/** Section 233 directionals, spelled out and abbreviated → the abbreviation. */
export const DIRECTIONALS: ReadonlyMap<string, string> = new Map([
  ['NORTH', 'N'],
  ['SOUTH', 'S'],
  ['EAST', 'E'],
  ['WEST', 'W'],
  ['NORTHEAST', 'NE'],
  ['NORTHWEST', 'NW'],
  ['SOUTHEAST', 'SE'],
  ['SOUTHWEST', 'SW'],
  ['N', 'N'],
  ['S', 'S'],
  ['E', 'E'],
  ['W', 'W'],
  ['NE', 'NE'],
  ['NW', 'NW'],
  ['SE', 'SE'],
  ['SW', 'SW'],
]);

/**
 * Appendix C2: [designator, standard abbreviation, other spellings seen in client lists (ours, not
 * Pub 28), whether Pub 28 says the designator takes a range (a unit number)].
 */
export const UNIT_DESIGNATOR_ROWS: readonly (readonly [
  designator: string,
  standard: string,
  variants: string,
  takesRange: boolean,
])[] = Object.freeze([
  ['APARTMENT', 'APT', 'APPT APTMT APRT', true],
  ['BASEMENT', 'BSMT', '', false],
  ['BUILDING', 'BLDG', 'BLD BLDNG', true],
  ['DEPARTMENT', 'DEPT', '', true],
  ['FLOOR', 'FL', 'FLR', true],
  ['FRONT', 'FRNT', '', false],
  ['HANGAR', 'HNGR', '', true],
  ['KEY', 'KEY', '', true],
  ['LOBBY', 'LBBY', '', false],
  ['LOT', 'LOT', '', true],
  ['LOWER', 'LOWR', '', false],
  ['OFFICE', 'OFC', '', false],
  ['PENTHOUSE', 'PH', '', false],
  ['PIER', 'PIER', '', true],
  ['REAR', 'REAR', '', false],
  ['ROOM', 'RM', '', true],
  ['SIDE', 'SIDE', '', false],
  ['SLIP', 'SLIP', '', true],
  ['SPACE', 'SPC', '', true],
  ['STOP', 'STOP', '', true],
  ['SUITE', 'STE', '', true],
  ['TRAILER', 'TRLR', '', true],
  ['UNIT', 'UNIT', 'UNT', true],
  ['UPPER', 'UPPR', '', false],
] as const);

/** Every C2 spelling → standard abbreviation; '#' (Pub 28's sign for a unit of unknown type) → '#'. */
export const UNIT_DESIGNATORS: ReadonlyMap<string, string> = buildUnitMap();

/** Standard abbreviations of the designators that take no unit number (REAR, BSMT, ...). */
export const RANGELESS_UNITS: ReadonlySet<string> = new Set(
  UNIT_DESIGNATOR_ROWS.filter((row) => !row[3]).map((row) => row[1]),
);

function buildUnitMap(): Map<string, string> {
  const map = new Map<string, string>([['#', '#']]);
  for (const [designator, standard, variants] of UNIT_DESIGNATOR_ROWS) {
    map.set(designator, standard);
    map.set(standard, standard);
    for (const variant of variants.split(' ')) if (variant !== '') map.set(variant, standard);
  }
  return map;
}

// ---------------------------------------------------------------------------------------------------
// Our additions (not Pub 28): standardizations of words inside the street name.

/** Ordinal words FIRST..NINTH, which also combine with a tens word (TWENTY FIRST → 21ST). */
export const ORDINAL_UNIT_WORDS: ReadonlyMap<string, string> = new Map([
  ['FIRST', '1ST'],
  ['SECOND', '2ND'],
  ['THIRD', '3RD'],
  ['FOURTH', '4TH'],
  ['FIFTH', '5TH'],
  ['SIXTH', '6TH'],
  ['SEVENTH', '7TH'],
  ['EIGHTH', '8TH'],
  ['NINTH', '9TH'],
]);

/** Tens words that prefix an ordinal unit word: TWENTY FIRST (or TWENTY-FIRST) → '2' + '1ST'. */
export const ORDINAL_TENS_WORDS: ReadonlyMap<string, string> = new Map([
  ['TWENTY', '2'],
  ['THIRTY', '3'],
  ['FORTY', '4'],
  ['FIFTY', '5'],
  ['SIXTY', '6'],
  ['SEVENTY', '7'],
  ['EIGHTY', '8'],
  ['NINETY', '9'],
]);

/**
 * Single words standardized wherever they appear in the street name (not only as the suffix), because
 * lists spell them both ways and Pub 28 does not settle it:
 * - SAINT → ST everywhere in the name. The parser never takes the first name word as the suffix, so the
 *   ST of 'ST JAMES PL' stays in the name (Saint) and only a later ST is the STREET suffix.
 * - MOUNT → MT, FORT → FT (the C1 abbreviations of those words); AVENUE → AVE for lettered avenues and
 *   'AVENUE OF THE AMERICAS', where the word is the name rather than the suffix.
 * - HIGHWAY → HWY, ROUTE → RTE for route names ('HIGHWAY 10', 'OLD ROUTE 9'); TOWNSHIP → TWP.
 * - Ordinal words → digits: 'FIRST ST' ⇄ '1ST ST'.
 * - MLK → MARTIN LUTHER KING: the one street name that a whole country's lists abbreviate to its
 *   initials ('MLK JR BLVD').
 */
export const NAME_WORDS: ReadonlyMap<string, string> = new Map([
  ['SAINT', 'ST'],
  ['SAINTE', 'STE'],
  ['MOUNT', 'MT'],
  ['MNT', 'MT'],
  ['FORT', 'FT'],
  ['FRT', 'FT'],
  ['AVENUE', 'AVE'],
  ['AV', 'AVE'],
  ['AVEN', 'AVE'],
  ['AVENU', 'AVE'],
  ['AVN', 'AVE'],
  ['AVNUE', 'AVE'],
  ['HIGHWAY', 'HWY'],
  ['HIGHWY', 'HWY'],
  ['HIWAY', 'HWY'],
  ['HIWY', 'HWY'],
  ['HWAY', 'HWY'],
  ['ROUTE', 'RTE'],
  ['RT', 'RTE'],
  ['TOWNSHIP', 'TWP'],
  ['MLK', 'MARTIN LUTHER KING'],
  ...ORDINAL_UNIT_WORDS,
  ['TENTH', '10TH'],
  ['ELEVENTH', '11TH'],
  ['TWELFTH', '12TH'],
  ['THIRTEENTH', '13TH'],
  ['FOURTEENTH', '14TH'],
  ['FIFTEENTH', '15TH'],
  ['SIXTEENTH', '16TH'],
  ['SEVENTEENTH', '17TH'],
  ['EIGHTEENTH', '18TH'],
  ['NINETEENTH', '19TH'],
  ['TWENTIETH', '20TH'],
  ['THIRTIETH', '30TH'],
  ['FORTIETH', '40TH'],
  ['FIFTIETH', '50TH'],
  ['SIXTIETH', '60TH'],
  ['SEVENTIETH', '70TH'],
  ['EIGHTIETH', '80TH'],
  ['NINETIETH', '90TH'],
]);

/** Spelled-out house numbers, honoured only as the first token of a street address ('ONE MAIN ST'). */
export const NUMBER_WORDS: ReadonlyMap<string, string> = new Map([
  ['ONE', '1'],
  ['TWO', '2'],
  ['THREE', '3'],
  ['FOUR', '4'],
  ['FIVE', '5'],
  ['SIX', '6'],
  ['SEVEN', '7'],
  ['EIGHT', '8'],
  ['NINE', '9'],
  ['TEN', '10'],
]);

/**
 * Route-name phrases → one name token, applied only when a route number or letter follows ('COUNTY ROAD K',
 * 'STATE ROUTE 9'). Merging them first keeps the ROAD of 'COUNTY ROAD 5' from being read as the suffix.
 * We fold each road class to one spelling: every county road/highway/route to CR (Wisconsin's County
 * Highway K is also called County Road K), every state route/road/highway to SR, every U.S. route to
 * US HWY, Texas farm-to-market roads to FM, interstates to I. A bare 'HWY 10' stays HWY: it does not
 * say which class, so it is not folded into SR or US HWY.
 */
export const ROUTE_PHRASES: readonly (readonly [phrase: string, name: string])[] = Object.freeze([
  ['COUNTY ROAD', 'CR'],
  ['COUNTY RD', 'CR'],
  ['COUNTY HIGHWAY', 'CR'],
  ['COUNTY HWY', 'CR'],
  ['COUNTY ROUTE', 'CR'],
  ['COUNTY RTE', 'CR'],
  ['COUNTY TRUNK HIGHWAY', 'CR'],
  ['COUNTY TRUNK HWY', 'CR'],
  ['CO ROAD', 'CR'],
  ['CO RD', 'CR'],
  ['CO HIGHWAY', 'CR'],
  ['CO HWY', 'CR'],
  ['CO RTE', 'CR'],
  ['CNTY ROAD', 'CR'],
  ['CNTY RD', 'CR'],
  ['CNTY HWY', 'CR'],
  ['CTY ROAD', 'CR'],
  ['CTY RD', 'CR'],
  ['CTY HWY', 'CR'],
  ['CTH', 'CR'],
  ['STATE ROUTE', 'SR'],
  ['STATE RTE', 'SR'],
  ['STATE RT', 'SR'],
  ['STATE ROAD', 'SR'],
  ['STATE RD', 'SR'],
  ['STATE HIGHWAY', 'SR'],
  ['STATE HWY', 'SR'],
  ['ST ROUTE', 'SR'],
  ['ST RTE', 'SR'],
  ['ST RT', 'SR'],
  ['ST RD', 'SR'],
  ['ST HWY', 'SR'],
  ['STH', 'SR'],
  ['SH', 'SR'],
  ['US HIGHWAY', 'US HWY'],
  ['US HWY', 'US HWY'],
  ['US ROUTE', 'US HWY'],
  ['US RTE', 'US HWY'],
  ['US RT', 'US HWY'],
  ['U S HIGHWAY', 'US HWY'],
  ['U S HWY', 'US HWY'],
  ['U S ROUTE', 'US HWY'],
  ['U S', 'US HWY'],
  ['US', 'US HWY'],
  ['USH', 'US HWY'],
  ['FARM TO MARKET ROAD', 'FM'],
  ['FARM TO MARKET RD', 'FM'],
  ['FARM TO MARKET', 'FM'],
  ['FARM ROAD', 'FM'],
  ['FARM RD', 'FM'],
  ['F M', 'FM'],
  ['INTERSTATE HIGHWAY', 'I'],
  ['INTERSTATE HWY', 'I'],
  ['INTERSTATE', 'I'],
  ['IH', 'I'],
  ['TOWNSHIP ROAD', 'TWP RD'],
  ['TOWNSHIP RD', 'TWP RD'],
  ['TWP ROAD', 'TWP RD'],
  ['TWP RD', 'TWP RD'],
] as const);
