import type { Importer } from "../types.js";
import { elanImporter } from "./elan.js";
import { exmaraldaImporter } from "./exmaralda.js";
import { teamsDocxImporter } from "./teams-docx.js";
import { transcriberImporter } from "./transcriber.js";

/** The XML-based importers (parsed with fast-xml-parser through xml.ts; .docx is XML in a zip). */
export const xmlImporters: Importer[] = [transcriberImporter, elanImporter, exmaraldaImporter, teamsDocxImporter];
