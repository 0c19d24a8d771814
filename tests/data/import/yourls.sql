-- A YOURLS database dump (mysqldump)
CREATE TABLE `yourls_url` (
  `keyword` varchar(100) NOT NULL,
  `url` text NOT NULL,
  `title` text,
  `timestamp` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  `ip` varchar(41) NOT NULL,
  `clicks` int(10) unsigned NOT NULL,
  PRIMARY KEY (`keyword`)
);
INSERT INTO `yourls_options` (`option_id`, `option_name`, `option_value`) VALUES (1,'version','1.9.2');
INSERT INTO `yourls_url` (`keyword`, `url`, `title`, `timestamp`, `ip`, `clicks`) VALUES ('yt-1','https://example.net/watch?v=1&t=2','It\'s a video','2023-01-05 12:00:00','192.0.2.1',17),
('docs-2','https://example.net/docs','Docs, ''quoted''','2023-02-01 08:00:00','192.0.2.2',0),
('bad-3','javascript:alert(1)',NULL,'2023-03-01 08:00:00','192.0.2.3',3);
INSERT INTO `yourls_log` (`click_id`, `click_time`, `shorturl`) VALUES (1,'2023-01-05 12:01:00','yt-1');
