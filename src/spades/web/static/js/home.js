// The home page: a few cards drawn by the project.
import { cardSVG } from "./cards.js";

const hero = document.getElementById("hero-cards");
for (const code of ["AS", "KH", "QC", "JD", "BJ"]) hero.appendChild(cardSVG(code));
document.documentElement.dataset.ready = "home";
