// The console's only script (served by the stack, no inline code): copy buttons, date-time
// pickers in the browser's zone sent in UTC, live A/B shares and the clicks chart (uPlot).
"use strict";

function pad(number) {
  return String(number).padStart(2, "0");
}

// A UTC moment (ISO 8601) as a datetime-local value in this browser's zone.
function localValue(iso) {
  const moment = new Date(iso);
  if (isNaN(moment)) return "";
  return `${moment.getFullYear()}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}T${pad(moment.getHours())}:${pad(moment.getMinutes())}`;
}

function setUpMoments() {
  const pickers = document.querySelectorAll("input.moment[data-utc]");
  for (const picker of pickers) {
    const utc = document.getElementById(picker.dataset.utc);
    if (utc && utc.value) picker.value = localValue(utc.value);
    picker.form.addEventListener("submit", () => {
      // A datetime-local value without a zone is read by Date as local time.
      utc.value = picker.value ? new Date(picker.value).toISOString() : "";
    });
  }
  for (const time of document.querySelectorAll("time.local")) {
    const moment = new Date(time.getAttribute("datetime"));
    if (!isNaN(moment)) time.textContent = moment.toLocaleString();
  }
}

function setUpCopyButtons() {
  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(button.dataset.copy);
        button.textContent = "Copied";
      } catch {
        button.textContent = "Press Ctrl+C";
        window.prompt("Copy the short URL:", button.dataset.copy);
      }
    });
  }
}

function setUpShares() {
  const variants = document.getElementById("variants");
  if (!variants) return;
  const update = () => {
    const rows = [...variants.querySelectorAll("fieldset.variant")];
    const weights = rows.map((row) => {
      const url = row.querySelector("input[type=url]").value.trim();
      const weight = parseInt(row.querySelector("input.weight").value, 10);
      return url && weight > 0 ? weight : 0;
    });
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    rows.forEach((row, index) => {
      row.querySelector("output.share").textContent = total ? `${Math.round((weights[index] * 1000) / total) / 10} %` : "–";
    });
  };
  variants.addEventListener("input", update);
  update();
}

function setUpRange() {
  const range = document.getElementById("range");
  if (!range) return;
  const show = () => {
    for (const custom of document.querySelectorAll(".custom")) custom.hidden = range.value !== "custom";
  };
  range.addEventListener("change", show);
  show();
}

function drawChart() {
  const element = document.getElementById("chart");
  if (!element || !window.uPlot) return;
  const series = JSON.parse(element.dataset.series);
  const data = [
    series.map((point) => Date.parse(point.start) / 1000),
    series.map((point) => point.people),
    series.map((point) => point.bots),
    series.map((point) => point.unique_visitors),
  ];
  const options = {
    width: Math.max(element.clientWidth, 300),
    height: 260,
    series: [
      {},
      { label: "People's clicks", stroke: "#1d4ed8", width: 2 },
      { label: "Bots", stroke: "#b45309", width: 2 },
      { label: "Unique visitors", stroke: "#047857", width: 2 },
    ],
    axes: [{}, { label: "per point" }],
  };
  element.chart = new window.uPlot(options, data, element);
}

// A file input that fills a text field (a SAML metadata document): the form stays a plain one.
function setUpFileFills() {
  for (const input of document.querySelectorAll("input[type=file][data-fills]")) {
    input.addEventListener("change", async () => {
      const target = document.getElementById(input.dataset.fills);
      const [file] = input.files;
      if (target && file) target.value = await file.text();
    });
  }
}

document.addEventListener("DOMContentLoaded", () => {
  setUpMoments();
  setUpCopyButtons();
  setUpShares();
  setUpRange();
  drawChart();
  setUpFileFills();
});
