/**
 * Street vocabulary for synthetic addresses: USPS Publication 28 suffix and directional
 * abbreviations, common street names, subdivision-style compound names and rural road forms.
 */

function words(text: string): string[] {
  return text
    .trim()
    .split(/\s+/)
    .map((word) => word.replaceAll('_', ' '));
}

/** Common street names, most common first (numbered streets are added by the generator). */
export const STREET_NAMES: readonly string[] = words(`
  MAIN OAK PINE MAPLE CEDAR ELM WASHINGTON LAKE HILL PARK WALNUT SPRING NORTH RIDGE CHURCH WILLOW MILL
  SUNSET JACKSON CHERRY HIGHLAND FRANKLIN LINCOLN JEFFERSON MADISON MEADOW FOREST DOGWOOD MAGNOLIA
  HICKORY BIRCH ASPEN SYCAMORE LOCUST CHESTNUT POPLAR HOLLY LAUREL ADAMS MONROE CENTER VALLEY RIVER
  BROADWAY MARKET UNION COLLEGE ACADEMY SCHOOL MILITARY LIBERTY HARRISON WILSON GRANT SHERIDAN
  CLEVELAND KING HOLLOW CREEK BROOK FAIRVIEW GREENVIEW LAKEVIEW HILLCREST CRESTVIEW WOODLAND
  ORCHARD VINE GROVE HAWTHORNE COTTONWOOD MESQUITE PALM OCEAN BAY HARBOR COUNTRY_CLUB MILL_CREEK
  DEER_RUN FOX_HOLLOW PEACHTREE MARTIN_LUTHER_KING SOUTH EAST WEST CENTRAL HIGH PROSPECT PLEASANT
  GREEN SECOND THIRD STATE WATER BRIDGE FRONT RAILROAD STATION DEPOT MAPLEWOOD ELMWOOD OAKWOOD
  KENNEDY ROOSEVELT TRUMAN EISENHOWER CARTER HOOVER TAYLOR POLK PIERCE BUCHANAN JOHNSON GARFIELD
  ARTHUR MCKINLEY COOLIDGE HAMILTON FRANKLIN MARSHALL JAY CLAY WEBSTER CALHOUN ELLIOTT DAVIS
  PERSHING LEE FAIRFAX VIRGINIA CAROLINA GEORGIA OHIO INDIANA MICHIGAN DELAWARE VERMONT MAINE
  SANTA_FE RIO_GRANDE CAMINO_REAL DEL_MAR LAS_PALMAS EL_CAMINO LOS_ALAMOS SAN_PEDRO ALAMEDA
  BELMONT BEVERLY CAMBRIDGE DEVON ESSEX GLENWOOD HAMPTON KENSINGTON LEXINGTON MONTICELLO OXFORD
  PRINCETON RICHMOND STRATFORD WINDSOR YORKSHIRE ARLINGTON BRENTWOOD CHARLESTON DOVER EVERGREEN
`);

/** Subdivision names are built as FIRST + SECOND (`STONE BRIDGE`, `WILLOW CREEK`). */
export const COMPOUND_FIRST: readonly string[] = words(`
  OAK PINE WILLOW CEDAR MAPLE STONE FOX DEER EAGLE HAWK QUAIL SPRING SUMMER AUTUMN WINTER SILVER
  GOLDEN SHADY SUNNY MEADOW RIVER BRIAR HIDDEN ROLLING WHISPERING TIMBER HUNTERS COUNTRY FOREST
  WILD ROSE IVY HERON CARDINAL BLUEBIRD FALCON RAVEN BEAR WOLF ELK POND MISTY CLEAR SPRING_HILL
`);

export const COMPOUND_SECOND: readonly string[] = words(`
  RIDGE CREEK HOLLOW RUN BRIDGE BROOK GLEN VIEW WOOD WOODS FIELD FIELDS MEADOW POINT CREST HAVEN
  TRACE LANDING CROSSING GATE PARK VALLEY SPRINGS HILL HILLS KNOLL BEND GROVE ORCHARD CHASE
`);

/** USPS suffix abbreviations with weights for dense, suburban and town/rural streets. */
export const SUFFIXES = {
  urban: [
    ['ST', 40],
    ['AVE', 28],
    ['BLVD', 5],
    ['RD', 6],
    ['DR', 5],
    ['PL', 4],
    ['TER', 2],
    ['WAY', 2],
    ['CT', 2],
    ['PKWY', 1],
    ['LN', 2],
    ['ALY', 1],
    ['SQ', 1],
    ['ROW', 1],
  ],
  suburban: [
    ['DR', 26],
    ['CT', 13],
    ['LN', 13],
    ['RD', 9],
    ['WAY', 8],
    ['CIR', 7],
    ['ST', 6],
    ['AVE', 4],
    ['PL', 4],
    ['TRL', 4],
    ['LOOP', 2],
    ['TER', 2],
    ['PKWY', 1],
    ['BLVD', 1],
    ['PATH', 1],
    ['RUN', 1],
    ['XING', 1],
    ['CV', 1],
    ['PT', 1],
  ],
  town: [
    ['ST', 28],
    ['AVE', 14],
    ['RD', 16],
    ['DR', 12],
    ['LN', 9],
    ['CT', 4],
    ['HWY', 4],
    ['CIR', 3],
    ['WAY', 2],
    ['PIKE', 2],
    ['TRL', 2],
    ['PL', 2],
    ['TER', 1],
    ['BLVD', 1],
  ],
  rural: [
    ['RD', 50],
    ['LN', 14],
    ['DR', 8],
    ['HWY', 8],
    ['TRL', 6],
    ['PIKE', 3],
    ['WAY', 3],
    ['RUN', 2],
    ['LOOP', 2],
    ['PATH', 1],
  ],
} as const satisfies Record<string, readonly (readonly [string, number])[]>;

export const DIRECTIONALS: readonly string[] = [
  'N',
  'S',
  'E',
  'W',
  'N',
  'S',
  'E',
  'W',
  'NE',
  'NW',
  'SE',
  'SW',
];
