"""The edge tier: what CloudFront's viewer-request function (edge/viewer-request.js) may answer
at the POP, and the KeyValueStore entries it reads."""
