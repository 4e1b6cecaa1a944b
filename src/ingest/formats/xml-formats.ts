import type { Importer } from "../types.js";
import { elanImporter } from "./elan.js";
import { transcriberImporter } from "./transcriber.js";

/** The XML-based importers (parsed with fast-xml-parser through xml.ts). */
export const xmlImporters: Importer[] = [transcriberImporter, elanImporter];
