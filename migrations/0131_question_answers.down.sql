DROP TABLE IF EXISTS question_answers;
